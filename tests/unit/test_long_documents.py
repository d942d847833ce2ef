"""Memory bounded by clean.max_doc_chars, not by the largest document: the readers refuse a longer document after
reading a bounded number of bytes of it (a decompression bomb included), naming where it is; a long document is
tokenized in pieces that give the ids of the whole document."""

import gzip
import json
import re
import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tokenizers import Tokenizer, models

import snakebert.data.tokens
from snakebert.data.formats import read_files
from snakebert.data.tokens import encode_documents, load_tokenizer
from snakebert.errors import DataError

LIMIT = 1000
TOO_LONG = f"clean.max_doc_chars ({LIMIT:,} characters); raise the setting (memory grows with it) or split the document"
TRICKY = "Naïve café, Ångström\u0301 and 中文字符 in U.S.A. (e.g.) state-of-the-art:\n\n\tend? «quoted»  42.5%; "


def read(file_format: str, path) -> list[str]:
    return [text for batch in read_files(file_format, [str(path)], "text", LIMIT) for text in batch.to_pylist()]


def refused(message: str):
    return pytest.raises(DataError, match=re.escape(message))


def refusal_and_peak(file_format: str, path) -> tuple[str, int]:
    """The message `read` is refused with, and the peak of the memory Python allocated for it."""
    tracemalloc.start()
    try:
        with pytest.raises(DataError) as error:
            read(file_format, path)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return str(error.value), peak


def test_a_document_at_the_limit_is_read_and_one_past_it_is_named(tmp_path):
    (tmp_path / "a.txt").write_text("é" * LIMIT)
    assert read("text", tmp_path / "a.txt") == ["é" * LIMIT]
    (tmp_path / "b.txt").write_text("é" * (LIMIT + 1))
    with refused(f"b.txt: a document of 1,001 characters, more than {TOO_LONG}"):
        read("text", tmp_path / "b.txt")


def test_a_decompression_bomb_is_stopped_after_a_bounded_read(tmp_path):
    bomb = tmp_path / "bomb.txt.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as handle:
        for _ in range(200):
            handle.write(b"a " * 500_000)  # 200 MB of text in a file of about 1 MB
    message, peak = refusal_and_peak("text", bomb)
    assert message == f"{bomb}: a document longer than {TOO_LONG}"
    assert peak < 1_000_000, f"peak {peak:,} bytes"


@pytest.mark.parametrize(("file_format", "suffix"), [("lines", ".txt"), ("jsonl", ".jsonl")])
def test_a_long_line_is_named_without_being_read_whole(tmp_path, file_format, suffix):
    path = tmp_path / f"docs{suffix}"
    long = "word " * 4_000_000  # 20 MB on line 2
    lines = ["short one", long, "never read"]
    path.write_text("\n".join(json.dumps({"text": line}) if file_format == "jsonl" else line for line in lines))
    message, peak = refusal_and_peak(file_format, path)
    assert message == f"{path}:2: a document longer than {TOO_LONG}"
    assert peak < 1_000_000, f"peak {peak:,} bytes"


def test_a_short_json_line_of_a_long_text_is_measured_in_characters(tmp_path):
    path = tmp_path / "escaped.jsonl"
    path.write_text(json.dumps({"text": "\u00e9" * (LIMIT + 1)}) + "\n")  # 6 bytes per character: \u00e9
    with refused(f"escaped.jsonl:1: a document of 1,001 characters, more than {TOO_LONG}"):
        read("jsonl", path)


@pytest.mark.parametrize("file_format", ["parquet", "arrow"])
def test_a_long_row_of_a_columnar_file_is_named(tmp_path, file_format):
    path = tmp_path / f"docs.{file_format}"
    table = pa.table({"text": ["short"] * 1500 + ["x" * (LIMIT + 7)]})
    if file_format == "parquet":
        pq.write_table(table, path)
    else:
        with pa.ipc.new_file(str(path), table.schema) as writer:
            writer.write_table(table)
    with refused(f"docs.{file_format}: row 1500: a document of 1,007 characters, more than {TOO_LONG}"):
        read(file_format, path)


def whole_ids(tokenizer: Tokenizer, texts: list[str]) -> list[list[int]]:
    return [encoding.ids for encoding in tokenizer.encode_batch(texts)]


def test_a_long_document_tokenized_in_pieces_has_the_ids_of_the_whole(tiny_data, monkeypatch):
    monkeypatch.setattr(snakebert.data.tokens, "PIECE_CHARS", 300)  # many cuts in a short text
    tokenizer = load_tokenizer(str(tiny_data.tokenizer))
    texts = [TRICKY * 40, "short " + TRICKY, "x" * 700 + " " + TRICKY * 5, (TRICKY + "\n") * 9]
    pieced = encode_documents(tokenizer, texts)
    assert [list(map(int, ids)) for ids in pieced] == whole_ids(tokenizer, texts)
    assert len(pieced[0]) > 1000 and isinstance(pieced[0], np.ndarray)  # it went through the pieces


def test_a_tokenizer_that_does_not_split_at_whitespace_encodes_the_document_whole(monkeypatch):
    monkeypatch.setattr(snakebert.data.tokens, "PIECE_CHARS", 20)
    vocabulary = {"[UNK]": 0, "ab": 1, "##ab": 2, "##_": 3, "a": 4, "##b": 5}
    tokenizer = Tokenizer(models.WordPiece(vocabulary, unk_token="[UNK]", max_input_chars_per_word=1000))
    text = "ab" * 30 + " " + "ab" * 30  # no pre-tokenizer: the space is inside the one word, an unknown one
    assert [list(map(int, ids)) for ids in encode_documents(tokenizer, [text])] == whole_ids(tokenizer, [text])
