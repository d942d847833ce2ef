"""Any file name a filesystem allows goes through a real run: braces (which Snakemake reads as wildcards), leading
dashes (which a command line reads as options), quotes, spaces and non-ASCII; a glob that would match the workflow's
own outputs is refused and keeps them; a fine-tuning task's file with braces in its name too. A name that cannot
work (not UTF-8, a line break) and a symlink out of the corpus are refused by the shard plan the workflow makes when
it is read: tests/unit/test_sources.py and test_symlinks.py."""

import json
import os

import pyarrow as pa
from finetune_data import pair_rows, write_csv
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


def test_a_task_file_whose_name_holds_braces_is_prepared_as_itself(workdir):
    """Snakemake would read `{task}` in a task file's path as a wildcard: the workflow declares it through an alias
    and prepare_task reads the real file."""
    rows = pair_rows(40)
    write_csv(workdir / "labelled" / "x{task}.csv", rows)
    task = {"name": "pairs", "type": "files", "format": "csv", "train": "labelled/x{task}.csv",
            "text_column": "first", "text_pair_column": "second", "label_column": "label"}  # fmt: skip
    config = {"sources": [{"name": "s", "type": "embedded"}], **TEST_CONFIG, "finetune": {"tasks": [task]}}
    snakemake(workdir, "results/finetune/pairs/data", config=config)
    task_file = json.loads((workdir / "results/finetune/pairs/data/task.json").read_text())
    assert sum(split["examples"] for split in task_file["splits"].values()) == len(rows)
    assert planned_jobs(workdir, config, "results/finetune/pairs/data") == {}
