"""Compressed text files (gzip, bzip2, xz, zstd, by extension) read as the same documents as uncompressed ones,
streamed; a UTF-8 byte-order mark is dropped in every text format; a damaged compressed file is named."""

import bz2
import gzip
import json
import lzma
import tracemalloc

import pytest
import zstandard
from helpers import MAX_DOC_CHARS

from snakebert.data.formats import BATCH_BYTES
from snakebert.data.sources import read_documents
from snakebert.errors import DataError

COMPRESS = {
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
    ".zst": zstandard.ZstdCompressor().compress,
}
DOCS = ["The first document, café.", "A second one\twith a tab.", "Ünïcödé third.", "Fourth and last."]
CONTENT = {
    "text": "\n".join(DOCS),  # a document per file: this file is one document
    "lines": "\n".join(DOCS) + "\n",
    "jsonl": "".join(json.dumps({"text": doc, "id": index}) + "\n" for index, doc in enumerate(DOCS)),
}


def documents(path, file_format: str) -> list[str]:
    source = {"name": "c", "type": "files", "format": file_format, "text_column": "text", "shard_mb": 64}
    return [text for batch in read_documents(source, [str(path)], 0, MAX_DOC_CHARS) for text in batch.to_pylist()]


@pytest.mark.parametrize("extension", sorted(COMPRESS))
@pytest.mark.parametrize("file_format", sorted(CONTENT))
def test_a_compressed_file_gives_the_documents_of_the_plain_one(tmp_path, file_format, extension):
    plain = tmp_path / f"corpus.{file_format}"
    plain.write_text(CONTENT[file_format], encoding="utf-8")
    packed = tmp_path / f"corpus.{file_format}{extension}"
    packed.write_bytes(COMPRESS[extension](plain.read_bytes()))
    assert documents(packed, file_format) == documents(plain, file_format)
    assert len(documents(plain, file_format)) == (1 if file_format == "text" else len(DOCS))


@pytest.mark.parametrize("extension", ["", ".gz"])
@pytest.mark.parametrize("file_format", sorted(CONTENT))
def test_a_byte_order_mark_is_dropped(tmp_path, file_format, extension):
    plain = tmp_path / f"plain.{file_format}"
    plain.write_text(CONTENT[file_format], encoding="utf-8")
    marked = tmp_path / f"marked.{file_format}{extension}"
    data = b"\xef\xbb\xbf" + plain.read_bytes()
    marked.write_bytes(COMPRESS[extension](data) if extension else data)
    assert documents(marked, file_format) == documents(plain, file_format)
    assert not any("\ufeff" in text for text in documents(marked, file_format))


@pytest.mark.parametrize(("extension", "codec"), [(".gz", "gzip"), (".bz2", "bzip2"), (".xz", "xz"), (".zst", "zstd")])
def test_a_truncated_compressed_file_is_named_with_its_codec(tmp_path, extension, codec):
    path = tmp_path / f"corpus.jsonl{extension}"
    path.write_bytes(COMPRESS[extension]((CONTENT["jsonl"] * 200).encode())[:-20])
    with pytest.raises(DataError, match=f"{path}: cannot read as {codec} "):
        documents(path, "jsonl")


def test_a_file_that_is_not_what_its_extension_says_is_named(tmp_path):
    path = tmp_path / "corpus.jsonl.gz"
    path.write_text(CONTENT["jsonl"])
    with pytest.raises(DataError, match=f"{path}: cannot read as gzip \\(BadGzipFile"):
        documents(path, "jsonl")


def test_reading_a_compressed_file_streams(tmp_path):
    """A 48 MB corpus, gzip-compressed, is read in batches: the memory held stays near one batch."""
    path = tmp_path / "large.lines.gz"
    line = ("a line of a large corpus that streams through the reader " * 4 + "\n").encode()
    with gzip.open(path, "wb", compresslevel=1) as handle:
        for _ in range(48_000_000 // len(line)):
            handle.write(line)
    tracemalloc.start()
    source = {"name": "c", "type": "files", "format": "lines", "text_column": "text"}
    read = sum(len(batch) for batch in read_documents(source, [str(path)], 0, MAX_DOC_CHARS))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert read == 48_000_000 // len(line)
    assert peak < 6 * BATCH_BYTES, f"peak {peak / 1e6:.0f} MB"  # 4 MB batches; the corpus is 48 MB


def test_a_zstd_file_of_several_frames_is_read_to_its_end(tmp_path):
    plain = tmp_path / "corpus.jsonl"
    plain.write_text(CONTENT["jsonl"] * 3, encoding="utf-8")
    packed = tmp_path / "corpus.jsonl.zst"
    compress = COMPRESS[".zst"]
    packed.write_bytes(b"".join(compress(CONTENT["jsonl"].encode()) for _ in range(3)))
    assert documents(packed, "jsonl") == documents(plain, "jsonl") and len(documents(packed, "jsonl")) == 12
