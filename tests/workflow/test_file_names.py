"""Any file name a filesystem allows goes through a real run: braces (which Snakemake reads as wildcards), leading
dashes (which a command line reads as options), quotes, spaces and non-ASCII. A name that cannot work (not UTF-8,
a line break) is refused before any job runs, shown escaped."""

import os

import pyarrow as pa
from helpers import TEST_CONFIG, planned_jobs, snakemake

NAMES = [
    "x{source}.txt",  # Snakemake would read it as x + the source wildcard + .txt ...
    "xs.txt",  # ... which is this file, for a source named `s`
    "y{z}.txt",  # a wildcard no rule has
    "--out=X.txt",  # an option of the ingest command, if it were read as one
    "-n.txt",
    'it\'s "quoted".txt',
    "two  spaces .txt",
    "café ünïcode.txt",
]
RAW = "results/raw/s/shard-00000.arrow"
TOP = ["--out=X.txt", "-n.txt"]


def write_corpus(workdir) -> dict:
    (workdir / "corpus").mkdir()
    texts = {}
    for index, name in enumerate(NAMES):
        texts[name] = f"Document number {index}, each read from its own file."
        (workdir / "corpus" / name).write_text(texts[name], encoding="utf-8")
    for name in TOP:  # at the top of a glob, where the path itself starts with a dash
        (workdir / name).write_text(f"{texts[name]} At the top.", encoding="utf-8")
    sources = [
        {"name": "s", "type": "files", "paths": ["corpus/*.txt"], "format": "text"},
        {"name": "top", "type": "files", "paths": ["*.txt"], "format": "text"},
    ]
    return texts, {"sources": sources, **TEST_CONFIG}


def read_texts(path) -> list[str]:
    with pa.memory_map(str(path)) as source:
        return pa.ipc.open_stream(source).read_all().column("text").to_pylist()


def test_every_name_is_read_once_as_itself_and_an_edit_reruns_its_shard(workdir):
    texts, config = write_corpus(workdir)
    snakemake(workdir, RAW, "results/raw/top/shard-00000.arrow", config=config)
    assert read_texts(workdir / RAW) == [texts[name] for name in sorted(NAMES, key=lambda name: f"corpus/{name}")]
    assert read_texts(workdir / "results/raw/top/shard-00000.arrow") == [f"{texts[name]} At the top." for name in TOP]
    assert not (workdir / "X.txt").exists() and not list(workdir.rglob("X.txt"))
    assert planned_jobs(workdir, config, RAW) == {}
    edited = workdir / "corpus" / "x{source}.txt"
    edited.write_text(texts["x{source}.txt"] + " Edited.", encoding="utf-8")
    os.utime(edited, ns=(edited.stat().st_atime_ns, edited.stat().st_mtime_ns + 10**9))
    assert planned_jobs(workdir, config, RAW) == {"ingest_shard": 1}


def test_a_name_that_is_not_utf8_is_refused_before_any_job_shown_escaped(workdir):
    _, config = write_corpus(workdir)
    with open(os.path.join(os.fsencode(workdir / "corpus"), b"caf\xe9.txt"), "w") as handle:
        handle.write("a document whose file name is Latin-1")
    done = snakemake(workdir, "-n", config=config, check=False)
    assert done.returncode != 0
    assert "source 's': file name b'corpus/caf\\xe9.txt' is not valid UTF-8; rename it" in done.stdout + done.stderr
    assert not (workdir / "results").exists()


def test_a_name_with_a_line_break_is_refused_before_any_job(workdir):
    _, config = write_corpus(workdir)
    (workdir / "corpus" / "two\nlines.txt").write_text("a document whose file name breaks a line")
    done = snakemake(workdir, "-n", config=config, check=False)
    assert done.returncode != 0
    assert "source 's': file name 'corpus/two\\nlines.txt' holds a line break; rename it" in done.stdout + done.stderr


def test_a_symlink_to_a_system_file_is_refused_before_any_job(workdir):
    _, config = write_corpus(workdir)
    (workdir / "corpus" / "passwords.txt").symlink_to("/etc/passwd")
    done = snakemake(workdir, "-n", config=config, check=False)
    assert done.returncode != 0
    assert "corpus/passwords.txt is a symlink to /etc/passwd, outside corpus and the working directory" in (
        done.stdout + done.stderr
    )
    config["sources"][0]["follow_symlinks"] = True
    assert snakemake(workdir, "-n", config=config).returncode == 0


def test_a_glob_that_would_match_the_workflow_outputs_is_refused_and_keeps_them(workdir):
    (workdir / "corpus").mkdir()
    table = pa.table({"text": [f"Arrow document {n}, long enough to be kept." for n in range(40)]})
    with pa.ipc.new_file(str(workdir / "corpus/a.arrow"), table.schema) as writer:
        writer.write_table(table)
    config = {"sources": [{"name": "x", "type": "files", "paths": ["**/*.arrow"], "format": "arrow"}], **TEST_CONFIG}
    snakemake(workdir, "results/raw/x/shard-00000.arrow", config=config)
    done = snakemake(workdir, "results/raw/x/shard-00000.arrow", config=config, check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert (
        "source 'x': results/raw/x/shard-00000.arrow (matched by '**/*.arrow') is in the workflow's own results/"
        in (output)
    )
    assert "CyclicGraphException" not in output
    assert (workdir / "results/raw/x/shard-00000.arrow").is_file()
