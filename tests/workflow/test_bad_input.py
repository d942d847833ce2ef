"""Bad input: a clear error naming the file, key or row, a non-zero exit, and no output that looks complete.

The ingest CLI is run as the `ingest_shard` rule runs it; what a job meets goes through real snakemake runs. A config
or a file list refused when the workflow is read is checked in the unit tier (test_config_validation.py,
test_config_checks.py, test_sources.py), and end to end by tests/workflow/test_config_refusals.py.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import REPO, TEST_CONFIG, files_source, snakemake, training_config, write_arrow, write_jsonl
from shared_builds import copy_build
from tiny_corpus import DOCS

from snakebert.data.formats import BATCH_DOCS
from snakebert.files.settings_files import settings_file

# The `clean` section as the schema fills it in, without strip patterns.
CLEAN = {
    "unicode_normalization": "NFC",
    "strip_patterns": [],
    "normalize_whitespace": True,
    "min_chars": 1,
    "max_doc_chars": 10_000_000,
    "dedup": True,
}
OUT = Path("results/raw/corpus/shard-00000.arrow")
STATS = Path("results/raw/corpus/shard-00000.json")
MANIFEST = "results/dataset/manifest.json"


def ingest(workdir: Path, source: dict, *files: str, clean: dict | None = None) -> subprocess.CompletedProcess:
    """Run scripts/ingest_shard.py in `workdir` as rules/ingest.smk does (paths relative to the working directory)."""
    command = [
        sys.executable,
        str(REPO / "scripts" / "ingest_shard.py"),
        "--source",
        settings_file(source, workdir),
        "--clean",
        settings_file(clean or CLEAN, workdir),
        "--shard",
        "0",
        "--out",
        str(OUT),
        "--stats",
        str(STATS),
        *files,
    ]
    return subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=120)


def assert_cli_refused(done: subprocess.CompletedProcess, workdir: Path, *fragments: str) -> None:
    """A clean refusal: non-zero exit, every fragment on stderr, no traceback, nothing left in the output folder."""
    assert done.returncode != 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    for fragment in fragments:
        assert fragment in done.stderr, done.stderr
    assert not (workdir / OUT).exists()
    assert not (workdir / STATS).exists()
    folder = workdir / OUT.parent
    left = sorted(path.name for path in folder.iterdir()) if folder.exists() else []
    assert left == [], f"left behind in {folder}: {left}"


def assert_workflow_refused(done: subprocess.CompletedProcess, workdir: Path, *fragments: str) -> str:
    """A failed snakemake run: non-zero exit, every fragment in its output, no manifest."""
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    for fragment in fragments:
        assert fragment in output, output
    assert not (workdir / MANIFEST).exists()
    return output


def tiny_config(sources: list[dict], **sections) -> dict:
    config = {"sources": sources, **json.loads(json.dumps(TEST_CONFIG))}
    for section, values in sections.items():
        config[section] = {**config.get(section, {}), **values}
    return config


def notes_config(workdir: Path, **sections) -> dict:
    """One small, valid jsonl source (corpus/notes.jsonl) with the tiny test settings."""
    write_jsonl(workdir / "corpus" / "notes.jsonl", [{"text": doc} for doc in DOCS])
    source = {"name": "notes", "type": "files", "paths": ["corpus/notes.jsonl"], "format": "jsonl"}
    return tiny_config([source], **sections)


def write_parquet(path: Path, table: pa.Table) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def write_columnar(path: Path, table: pa.Table, file_format: str) -> Path:
    """`table` as parquet, arrow-file or arrow-stream."""
    if file_format == "parquet":
        return write_parquet(path, table)
    return write_arrow(path, table, stream=file_format == "arrow-stream")


# --- missing files ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("file_format", ["text", "lines", "jsonl", "parquet", "arrow"])
def test_missing_file_given_to_ingest_names_the_file(workdir, file_format):
    done = ingest(workdir, files_source(file_format), "corpus/gone.data")
    assert_cli_refused(done, workdir, "error: ", "corpus/gone.data")


# --- undecodable and unparsable text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file_format", "content", "bad"),
    [
        ("text", "café and then ".encode() + b"\xff here", b"\xff"),
        ("lines", "first line, café\n".encode() + b"second \xfe line\n", b"\xfe"),
        ("jsonl", b'{"text": "fine"}\n{"text": "bad \xc3("}\n', b"\xc3("),
    ],
)
def test_invalid_utf8_names_the_file_and_the_byte_offset(workdir, file_format, content, bad):
    path = workdir / "corpus" / "broken.txt"
    path.parent.mkdir()
    path.write_bytes(content)
    offset = content.index(bad)  # counted from the start of the file, not of the line
    done = ingest(workdir, files_source(file_format), "corpus/broken.txt")
    assert_cli_refused(done, workdir, "corpus/broken.txt", "not valid UTF-8", f"at byte {offset}")


def test_invalid_utf8_in_a_later_file_names_that_file(workdir):
    good = write_jsonl(workdir / "corpus" / "a.jsonl", [{"text": "fine"}])
    bad = workdir / "corpus" / "b.jsonl"
    bad.write_bytes(b'{"text": "\x80"}\n')
    done = ingest(workdir, files_source("jsonl"), str(good.relative_to(workdir)), "corpus/b.jsonl")
    assert_cli_refused(done, workdir, "corpus/b.jsonl", "at byte 10")
    assert "corpus/a.jsonl" not in done.stderr


def test_jsonl_line_that_is_not_json_names_file_and_line_after_a_full_batch(workdir):
    # More than a batch of good records first, so that some output was written before the error.
    path = write_jsonl(workdir / "corpus" / "notes.jsonl", [{"text": f"note {n}"} for n in range(BATCH_DOCS + 5)])
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n")  # a blank line still counts as a line
        handle.write('{"text": "unterminated\n')
    line = BATCH_DOCS + 5 + 2
    done = ingest(workdir, files_source("jsonl"), "corpus/notes.jsonl")
    assert_cli_refused(done, workdir, f"corpus/notes.jsonl:{line}:", "not valid JSON")


def test_jsonl_record_that_is_not_an_object_names_file_and_line(workdir):
    path = workdir / "corpus" / "notes.jsonl"
    path.parent.mkdir()
    path.write_text('{"text": "fine"}\n["a", "list"]\n', encoding="utf-8")
    done = ingest(workdir, files_source("jsonl"), "corpus/notes.jsonl")
    assert_cli_refused(done, workdir, "corpus/notes.jsonl:2:", "'text'")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"text": "scraped \\ud800 text"}', "column 'text' holds a lone surrogate (\\ud800) at character 8"),
        ('{"text": "deep", "meta": ' + "[" * 100_000 + "]" * 100_000 + "}", "JSON nested too deeply to read"),
        ('{"text": "big", "id": ' + "7" * 5000 + "}", "Exceeds the limit (4300 digits)"),
    ],
    ids=["lone-surrogate", "nested-too-deeply", "too-many-digits"],  # the lines themselves are too long for an id
)
def test_jsonl_a_reader_cannot_take_is_named_with_file_and_line(workdir, line, message):
    path = workdir / "corpus" / "notes.jsonl"
    path.parent.mkdir()
    path.write_text('{"text": "fine"}\n' + line + "\n", encoding="utf-8")
    done = ingest(workdir, files_source("jsonl"), "corpus/notes.jsonl")
    assert_cli_refused(done, workdir, "corpus/notes.jsonl:2:", message)


def test_the_ingest_job_refuses_a_link_swapped_in_after_the_workflow_was_parsed(workdir):
    (workdir / "corpus").mkdir()
    (workdir / "corpus" / "a.txt").write_text("a document that is long enough to keep")
    (workdir / "corpus" / "b.txt").symlink_to("/etc/passwd")  # a real file when the shards were planned
    source = {**files_source("text"), "paths": ["corpus/*.txt"]}
    done = ingest(workdir, source, "corpus/a.txt", "corpus/b.txt")
    assert_cli_refused(done, workdir, "corpus/b.txt is a symlink to /etc/passwd, outside corpus and the working")


# --- missing or mistyped text column ------------------------------------------------------------------------------


def test_jsonl_missing_text_column_names_file_line_and_column(workdir):
    write_jsonl(workdir / "corpus" / "notes.jsonl", [{"body": "fine"}, {"content": "no body here"}])
    done = ingest(workdir, files_source("jsonl", text_column="body"), "corpus/notes.jsonl")
    assert_cli_refused(done, workdir, "corpus/notes.jsonl:2:", "no text column 'body'")


@pytest.mark.parametrize("file_format", ["parquet", "arrow-file", "arrow-stream"])
def test_missing_text_column_names_the_file_and_the_column(workdir, file_format):
    table = pa.table({"body": ["some text", "more text"], "id": [1, 2]})
    path = workdir / "corpus" / "data.bin"
    write_columnar(path, table, file_format)
    done = ingest(workdir, files_source(file_format.split("-")[0]), "corpus/data.bin")
    assert_cli_refused(done, workdir, "corpus/data.bin", "no text column 'text'", "body")


@pytest.mark.parametrize("file_format", ["parquet", "arrow"])
def test_text_column_that_is_not_a_string_names_the_file_and_the_column(workdir, file_format):
    table = pa.table({"text": [1, 2, 3]})
    path = workdir / "corpus" / "numbers.bin"
    if file_format == "parquet":
        write_parquet(path, table)
    else:
        write_arrow(path, table)
    done = ingest(workdir, files_source(file_format), "corpus/numbers.bin")
    assert_cli_refused(done, workdir, "corpus/numbers.bin", "'text'", "int64")


# --- null and empty texts are no error ----------------------------------------------------------------------------


@pytest.mark.parametrize("file_format", ["jsonl", "parquet", "arrow"])
def test_null_and_empty_texts_are_skipped_and_counted(workdir, file_format):
    texts = ["a real document", None, "", "another real document", None]
    path = workdir / "corpus" / "data.bin"
    if file_format == "jsonl":
        write_jsonl(path, [{"text": text} for text in texts])
    elif file_format == "parquet":
        write_parquet(path, pa.table({"text": pa.array(texts, pa.string())}))
    else:
        write_arrow(path, pa.table({"text": pa.array(texts, pa.string())}))
    done = ingest(workdir, files_source(file_format), "corpus/data.bin")
    assert done.returncode == 0, done.stderr
    stats = json.loads((workdir / STATS).read_text())
    assert stats["docs_read"] == 5
    assert stats["docs_null_or_empty"] == 3
    assert stats["docs"] == 2
    with pa.memory_map(str(workdir / OUT)) as source:
        table = pa.ipc.open_stream(source).read_all()
    assert table.column("text").to_pylist() == ["a real document", "another real document"]


# --- an empty corpus ----------------------------------------------------------------------------------------------


def test_empty_corpus_after_cleaning_fails_the_workflow_naming_the_source(workdir):
    config = notes_config(workdir, clean={"min_chars": 100_000})
    done = snakemake(workdir, config=config, check=False)
    assert_workflow_refused(
        done, workdir, f"source 'notes' has no documents left after cleaning and filtering: {len(DOCS)} read, 0 "
        f"null or empty, {len(DOCS)} too short (clean.min_chars) (see results/raw/notes/*.json)",
    )  # fmt: skip
    stats = json.loads((workdir / "results/raw/notes/shard-00000.json").read_text())
    assert stats["docs"] == 0
    assert stats["docs_too_short"] == len(DOCS)
    assert not (workdir / "results/dedup/duplicates.arrow").exists()
    assert not (workdir / "results/tokenizer").exists()


# --- corrupt binary files -----------------------------------------------------------------------------------------


def _valid_arrow(path: Path) -> bytes:
    write_arrow(path, pa.table({"text": [f"document {n}" for n in range(50)]}), stream=False)
    return path.read_bytes()


def _valid_parquet(path: Path) -> bytes:
    write_parquet(path, pa.table({"text": [f"document {n}" for n in range(50)]}))
    return path.read_bytes()


@pytest.mark.parametrize(
    ("file_format", "corrupt"),
    [
        ("arrow", lambda valid: b"not an arrow file at all, just some bytes" * 4),
        ("arrow", lambda valid: valid[: len(valid) // 2]),
        ("arrow", lambda valid: b""),
        ("parquet", lambda valid: b"PAR1" + b"\x00garbage\x01" * 20 + b"PAR1"),
        ("parquet", lambda valid: valid[: len(valid) // 2]),
        ("parquet", lambda valid: valid[:4] + bytes(len(valid) - 12) + valid[-8:]),
        ("parquet", lambda valid: valid.replace(b"text", b"t\xffxt")),  # a column name in the footer not UTF-8
    ],
    ids=[
        "arrow-garbage",
        "arrow-truncated",
        "arrow-empty",
        "parquet-garbage",
        "parquet-truncated",
        "parquet-zeroed",
        "parquet-footer-not-utf8",
    ],
)
def test_corrupt_file_names_the_file(workdir, file_format, corrupt):
    path = workdir / "corpus" / f"broken.{file_format}"
    path.parent.mkdir()
    valid = _valid_arrow(path) if file_format == "arrow" else _valid_parquet(path)
    path.write_bytes(corrupt(valid))
    done = ingest(workdir, files_source(file_format), f"corpus/broken.{file_format}")
    assert_cli_refused(done, workdir, "error: ", f"corpus/broken.{file_format}")


@pytest.mark.parametrize("file_format", ["parquet", "arrow-file", "arrow-stream"])
def test_string_column_holding_invalid_utf8_names_the_file(workdir, file_format):
    # Neither format checks that a string column is UTF-8 when it is read: the reader must.
    texts = pa.array([b"a good document", b"a bad \xff document"], pa.binary()).view(pa.string())
    table = pa.table({"text": texts})
    path = workdir / "corpus" / "data.bin"
    write_columnar(path, table, file_format)
    done = ingest(workdir, files_source(file_format.split("-")[0]), "corpus/data.bin")
    assert_cli_refused(done, workdir, "corpus/data.bin", "UTF-8")


def test_a_corrupt_file_after_a_good_one_leaves_no_output(workdir):
    write_parquet(workdir / "corpus" / "a.parquet", pa.table({"text": [f"doc {n}" for n in range(BATCH_DOCS + 1)]}))
    (workdir / "corpus" / "b.parquet").write_bytes(b"PAR1 this is not parquet PAR1")
    done = ingest(workdir, files_source("parquet"), "corpus/a.parquet", "corpus/b.parquet")
    assert_cli_refused(done, workdir, "corpus/b.parquet")


def test_a_bad_file_fails_the_workflow_and_leaves_no_shard(workdir):
    config = notes_config(workdir)
    good = b'{"text": "a document that is long enough"}\n'
    (workdir / "corpus" / "notes.jsonl").write_bytes(good + b'{"text": "\xff"}\n')
    offset = len(good) + len(b'{"text": "')
    done = snakemake(workdir, config=config, check=False)
    assert_workflow_refused(done, workdir, "corpus/notes.jsonl", f"not valid UTF-8 at byte {offset}")
    assert not (workdir / "results/raw/notes/shard-00000.arrow").exists()
    assert not (workdir / "results/raw/notes/shard-00000.json").exists()


def test_a_document_over_max_doc_chars_fails_the_workflow_naming_the_line_and_the_setting(workdir):
    config = notes_config(workdir, clean={"max_doc_chars": 50})
    done = snakemake(workdir, config=config, check=False)
    long = next(number for number, doc in enumerate(DOCS, start=1) if len(doc) > 50)
    assert_workflow_refused(
        done, workdir, f"corpus/notes.jsonl:{long}: a document of", "more than clean.max_doc_chars (50 characters)"
    )
    assert not (workdir / "results/raw/notes/shard-00000.arrow").exists()
    assert not (workdir / "results/raw/notes/shard-00000.json").exists()


# --- config errors a job meets ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("pattern", ["(unclosed", "foo(?=bar)", r"(a)\1", "[z-a]"])
def test_invalid_re2_strip_pattern_names_the_key_and_the_pattern(workdir, pattern):
    write_jsonl(workdir / "corpus" / "notes.jsonl", [{"text": doc} for doc in DOCS])
    clean = {**CLEAN, "strip_patterns": [r"\[applause\]", pattern]}
    done = ingest(workdir, files_source("jsonl"), "corpus/notes.jsonl", clean=clean)
    assert_cli_refused(done, workdir, "clean.strip_patterns", "invalid RE2 pattern", repr(pattern))


def test_a_validation_fraction_that_rounds_to_no_block_still_holds_out_one(workdir):
    config = notes_config(workdir, data={"validation_fraction": 0.001})
    snakemake(workdir, "results/dataset/manifest.json", config=config)
    manifest = json.loads((workdir / "results/dataset/manifest.json").read_text())
    assert manifest["split"]["validation_blocks"] == 1 and manifest["split"]["train_blocks"] >= 1


def test_a_data_set_of_one_block_fails_the_manifest_job_saying_why(workdir):
    config = notes_config(workdir, data={"block_size": 128})  # 187 tokens
    done = snakemake(workdir, "results/dataset/manifest.json", config=config, check=False)
    assert_workflow_refused(done, workdir)
    log = (workdir / "logs/build_manifest.log").read_text()
    assert "the data set has 1 block of data.block_size (128) tokens: training needs one and evaluation" in log, log
    assert "Traceback" not in log


def test_pretrain_refuses_a_changed_block_file_before_its_first_step(data_half, workdir):
    config = training_config(copy_build(data_half, workdir))
    manifest = json.loads((workdir / "results/dataset/manifest.json").read_text())
    path = workdir / "results/dataset" / manifest["shards"][0]["path"]
    stat = path.stat()
    content = bytearray(path.read_bytes())
    content[-40] ^= 1
    path.write_bytes(bytes(content))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # mtime kept: snakemake sees nothing to rebuild
    done = snakemake(workdir, "results/model", config=config, check=False)
    assert done.returncode != 0
    log = (workdir / "logs/pretrain.log").read_text()
    assert "error: results/blocks/texts/shard-00000.arrow: its SHA-256 differs" in log, log
    assert "Traceback" not in log and "step 1/" not in log
    assert not (workdir / "results/model").exists() and not list(workdir.glob("checkpoints/pretrain/*"))


def test_a_rerun_removes_the_temporaries_a_killed_job_left(workdir):
    config = training_config(workdir)
    target = "results/raw/notes/shard-00000.arrow"
    snakemake(workdir, target, config=config)
    left = [workdir / f"results/raw/notes/.shard-00000.{suffix}.tmp-99999" for suffix in ("arrow", "json")]
    for path in left:
        path.write_text("what a job killed while writing leaves")
    snakemake(workdir, target, "--forcerun", "ingest_shard", config=config)
    assert not any(path.exists() for path in left)
    assert sorted(path.name for path in (workdir / "results/raw/notes").iterdir()) == [
        "shard-00000.arrow", "shard-00000.json",
    ]  # fmt: skip
