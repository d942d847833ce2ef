"""The file formats of a `files` source, one table: each reader turns a shard's files into batches of document
texts (Arrow strings, nulls kept for the cleaner to count), in file order, each of bounded size. The text formats
(text, lines, jsonl) read files compressed with gzip, bzip2, xz or zstd too (compression.py), and drop a UTF-8
byte-order mark. No document may be longer than `limit` characters (clean.max_doc_chars): the text formats read at
most a bounded number of bytes for one document, so memory is bounded by the setting, not by the largest document
(nor by what a decompression stream would grow to). Adding a format is an entry in FORMATS, its reader, the schema's
`format` enum and the tests (tests/unit/test_tables.py checks that the enum equals the keys)."""

import json
from collections.abc import Callable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import DataError
from .compression import codec, open_input

BATCH_DOCS = 1024
BATCH_BYTES = 1 << 22
BOM = "\ufeff"
UTF8_BYTES = 4  # the most bytes of one character in UTF-8
JSON_BYTES = 12  # the most bytes of one character in a JSON string (a surrogate pair of \u escapes)


def too_long(where: str, chars: int | None, limit: int) -> DataError:
    """The refusal of a document of `chars` characters (None: more than `limit`, not read to its end)."""
    size = f"a document of {chars:,} characters, more than" if chars else "a document longer than"
    return DataError(
        f"{where}: {size} clean.max_doc_chars ({limit:,} characters); raise the setting (memory grows with it) or "
        "split the document"
    )


def check_lengths(texts: pa.Array, limit: int, where: str, first_row: int = 0) -> pa.Array:
    """`texts`, refused where one is longer than `limit` characters (naming the row of `where`)."""
    lengths = pc.utf8_length(texts).fill_null(0).to_numpy(zero_copy_only=False)
    if len(lengths) and lengths.max() > limit:
        row = int(np.argmax(lengths > limit))
        raise too_long(f"{where}: row {first_row + row}", int(lengths[row]), limit)
    return texts


def _decode(data: bytes, path: str, start: int = 0) -> str:
    """UTF-8 text; a byte-order mark at the start of a file is removed. `start`: the offset of `data` in the file
    (in its decompressed bytes for a compressed file)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        where = " of its decompressed text" if codec(path) else ""
        raise DataError(f"{path}: not valid UTF-8 at byte {start + error.start}{where}") from None
    return text.removeprefix(BOM) if start == 0 else text


def _batched(texts: Iterator[str | None]) -> Iterator[pa.Array]:
    """Batches of at most BATCH_DOCS documents and, but for a single long one, BATCH_BYTES characters."""
    batch, size = [], 0
    for text in texts:
        batch.append(text)
        size += len(text or "")
        if len(batch) == BATCH_DOCS or size >= BATCH_BYTES:
            yield pa.array(batch, pa.string())
            batch, size = [], 0
    if batch:
        yield pa.array(batch, pa.string())


def _checked(text: str, where: str, limit: int) -> str:
    if len(text) > limit:
        raise too_long(where, len(text), limit)
    return text


def _read_lines(handle, path: str, bound: int, limit: int) -> Iterator[tuple[int, bytes]]:
    """(number, line) of the lines of `handle`, none read past `bound` bytes: a longer line is refused as too long
    a document without being read whole."""
    number = 0
    while raw := handle.readline(bound + 1):
        number += 1
        if len(raw) > bound:
            raise too_long(f"{path}:{number}", None, limit)
        yield number, raw


def _text_files(paths: list[str], limit: int) -> Iterator[str]:
    for path in paths:
        with open_input(path) as handle:
            data = handle.read(UTF8_BYTES * limit + 1)  # more bytes than that are more than `limit` characters
            if len(data) > UTF8_BYTES * limit:
                raise too_long(path, None, limit)
            yield _checked(_decode(data, path), path, limit)


def _lines(paths: list[str], limit: int) -> Iterator[str]:
    for path in paths:
        with open_input(path) as handle:
            offset = 0
            for number, raw in _read_lines(handle, path, UTF8_BYTES * limit, limit):
                text = _decode(raw, path, offset)
                offset += len(raw)
                for line in text.split("\r"):  # a lone CR (old Mac line ends) breaks a line too
                    if line.strip():
                        yield _checked(line.strip(), f"{path}:{number}", limit)


def _jsonl(paths: list[str], column: str, limit: int) -> Iterator[str | None]:
    for path in paths:
        with open_input(path) as handle:
            offset = 0
            for number, raw in _read_lines(handle, path, JSON_BYTES * limit, limit):
                line = _decode(raw, path, offset)
                offset += len(raw)
                if not line.strip():
                    continue
                record = _json_record(line, f"{path}:{number}")
                if not isinstance(record, dict) or column not in record:
                    raise DataError(f"{path}:{number}: no text column {column!r}")
                text = _json_text(record[column], f"{path}:{number}", column)
                yield text if text is None else _checked(text, f"{path}:{number}", limit)


def _json_record(line: str, where: str):
    """One JSON Lines record; anything json cannot read (bad syntax, nesting past Python's recursion limit, an
    integer of more than 4300 digits) is an error that names the file and line."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise DataError(f"{where}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise DataError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as error:  # the integer digit limit
        raise DataError(f"{where}: JSON that cannot be read ({error})") from None


def _json_text(text, where: str, column: str) -> str | None:
    """The text column's value: a string that is Unicode text (JSON's `\\ud800` escapes a lone surrogate, which no
    UTF-8 file can hold), or null."""
    if text is not None and not isinstance(text, str):
        raise DataError(f"{where}: column {column!r} holds {type(text).__name__}, not text")
    try:
        (text or "").encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(text[error.start])
        raise DataError(
            f"{where}: column {column!r} holds a lone surrogate (\\u{code:04x}) at character {error.start}: not "
            "Unicode text"
        ) from None
    return text


def _string_column(table_or_batch, column: str, path: str) -> pa.Array:
    if column not in table_or_batch.schema.names:
        raise DataError(f"{path}: no text column {column!r} (columns: {', '.join(table_or_batch.schema.names)})")
    field = table_or_batch.schema.field(column)
    if not _is_text(field.type):
        raise DataError(f"{path}: column {column!r} has type {field.type}, not string")
    return table_or_batch.column(column)


def _is_text(kind: pa.DataType) -> bool:
    """string, large_string and string_view, or a dictionary of them (a pandas categorical)."""
    if pa.types.is_dictionary(kind):
        return _is_text(kind.value_type)
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)


def _valid_utf8(texts: pa.Array, column: str, path: str) -> pa.Array:
    try:
        texts.validate(full=True)
    except pa.ArrowInvalid:
        raise DataError(f"{path}: column {column!r} holds text that is not valid UTF-8") from None
    return texts


def parquet_texts(reader: pq.ParquetFile, column: str, name: str, limit: int, row_groups=None) -> Iterator[pa.Array]:
    """The `column` texts of a Parquet file (of `row_groups`, or all), checked as text, UTF-8 and no longer than
    `limit`; errors name `name`, and the row among those read."""
    _string_column(reader.schema_arrow.empty_table(), column, name)
    row = 0
    for batch in reader.iter_batches(batch_size=BATCH_DOCS, row_groups=row_groups, columns=[column]):
        yield check_lengths(_valid_utf8(batch.column(0).cast(pa.string()), column, name), limit, name, row)
        row += len(batch)


def _parquet(paths: list[str], column: str, limit: int) -> Iterator[pa.Array]:
    for path in paths:
        try:
            yield from parquet_texts(pq.ParquetFile(path), column, path, limit)
        except (pa.ArrowException, OSError, ValueError) as error:
            raise DataError(f"{path}: cannot read as parquet ({error})") from None


def _open_ipc(source: pa.MemoryMappedFile):
    try:
        return pa.ipc.open_file(source)
    except pa.ArrowInvalid:
        source.seek(0)
        return pa.ipc.open_stream(source)


def _arrow(paths: list[str], column: str, limit: int) -> Iterator[pa.Array]:
    for path in paths:
        try:
            with pa.memory_map(path) as source:
                table = _open_ipc(source).read_all()
                texts = _valid_utf8(_string_column(table, column, path).cast(pa.string()), column, path)
                check_lengths(texts, limit, path)
                for start in range(0, len(texts), BATCH_DOCS):
                    yield texts.slice(start, BATCH_DOCS).combine_chunks()
        except (pa.ArrowException, OSError) as error:
            raise DataError(f"{path}: cannot read as Arrow IPC ({error})") from None


def bounded(batches: Iterator[pa.Array]) -> Iterator[pa.Array]:
    """Split batches so that each holds at most BATCH_BYTES of text (or one document): memory stays flat."""
    for texts in batches:
        ends = np.cumsum(pc.binary_length(texts).fill_null(0).to_numpy(zero_copy_only=False))
        start = 0
        while start < len(texts):
            budget = (ends[start - 1] if start else 0) + BATCH_BYTES
            stop = max(start + 1, int(np.searchsorted(ends, budget, side="right")))
            yield texts.slice(start, stop - start)
            start = stop


def read_text(paths: list[str], column: str, limit: int) -> Iterator[pa.Array]:
    """A document per file."""
    return _batched(_text_files(paths, limit))


def read_lines(paths: list[str], column: str, limit: int) -> Iterator[pa.Array]:
    """A document per non-empty line."""
    return _batched(_lines(paths, limit))


def read_jsonl(paths: list[str], column: str, limit: int) -> Iterator[pa.Array]:
    """A document per JSON object, its text in `column`."""
    return _batched(_jsonl(paths, column, limit))


def read_parquet(paths: list[str], column: str, limit: int) -> Iterator[pa.Array]:
    return bounded(_parquet(paths, column, limit))


def read_arrow(paths: list[str], column: str, limit: int) -> Iterator[pa.Array]:
    """Arrow IPC, file or stream format."""
    return bounded(_arrow(paths, column, limit))


FORMATS: dict[str, Callable[[list[str], str, int], Iterator[pa.Array]]] = {
    "text": read_text,
    "lines": read_lines,
    "jsonl": read_jsonl,
    "parquet": read_parquet,
    "arrow": read_arrow,
}


def read_files(format_name: str, paths: list[str], column: str, limit: int) -> Iterator[pa.Array]:
    """The documents of `paths` in `format_name`, none longer than `limit` characters; an unknown format is an
    error that names it."""
    if format_name not in FORMATS:
        raise DataError(f"unknown file format {format_name!r} (known: {', '.join(FORMATS)})")
    return FORMATS[format_name](paths, column, limit)
