"""Read a source's documents as batches of Arrow strings (nulls kept for the cleaner to count)."""

import json
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from errors import DataError

BATCH_DOCS = 1024


def _decode(data: bytes, path: str, start: int = 0) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DataError(f"{path}: not valid UTF-8 at byte {start + error.start}") from None


def _batched(texts: Iterator[str | None]) -> Iterator[pa.Array]:
    batch = []
    for text in texts:
        batch.append(text)
        if len(batch) == BATCH_DOCS:
            yield pa.array(batch, pa.string())
            batch = []
    if batch:
        yield pa.array(batch, pa.string())


def _text_files(paths: list[str]) -> Iterator[str]:
    for path in paths:
        with open(path, "rb") as handle:
            yield _decode(handle.read(), path)


def _lines(paths: list[str]) -> Iterator[str]:
    for path in paths:
        with open(path, "rb") as handle:
            offset = 0
            for raw in handle:
                line = _decode(raw, path, offset).strip()
                offset += len(raw)
                if line:
                    yield line


def _jsonl(paths: list[str], column: str) -> Iterator[str | None]:
    for path in paths:
        with open(path, "rb") as handle:
            offset = 0
            for number, raw in enumerate(handle, start=1):
                line = _decode(raw, path, offset)
                offset += len(raw)
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise DataError(f"{path}:{number}: not valid JSON ({error.msg})") from None
                if not isinstance(record, dict) or column not in record:
                    raise DataError(f"{path}:{number}: no text column {column!r}")
                text = record[column]
                if text is not None and not isinstance(text, str):
                    raise DataError(f"{path}:{number}: column {column!r} holds {type(text).__name__}, not text")
                yield text


def _string_column(table_or_batch, column: str, path: str) -> pa.Array:
    if column not in table_or_batch.schema.names:
        raise DataError(f"{path}: no text column {column!r} (columns: {', '.join(table_or_batch.schema.names)})")
    field = table_or_batch.schema.field(column)
    if not (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)):
        raise DataError(f"{path}: column {column!r} has type {field.type}, not string")
    return table_or_batch.column(column)


def _parquet(paths: list[str], column: str) -> Iterator[pa.Array]:
    for path in paths:
        try:
            reader = pq.ParquetFile(path)
            _string_column(reader.schema_arrow.empty_table(), column, path)
            for batch in reader.iter_batches(batch_size=BATCH_DOCS, columns=[column]):
                yield batch.column(0).cast(pa.string())
        except (pa.ArrowException, OSError) as error:
            raise DataError(f"{path}: cannot read as parquet ({error})") from None


def _open_ipc(source: pa.MemoryMappedFile):
    try:
        return pa.ipc.open_file(source)
    except pa.ArrowInvalid:
        source.seek(0)
        return pa.ipc.open_stream(source)


def _arrow(paths: list[str], column: str) -> Iterator[pa.Array]:
    for path in paths:
        try:
            with pa.memory_map(path) as source:
                table = _open_ipc(source).read_all()
                texts = _string_column(table, column, path).cast(pa.string())
                for start in range(0, len(texts), BATCH_DOCS):
                    yield texts.slice(start, BATCH_DOCS).combine_chunks()
        except (pa.ArrowException, OSError) as error:
            raise DataError(f"{path}: cannot read as Arrow IPC ({error})") from None


def _hub(source: dict, shard: int) -> Iterator[pa.Array]:
    import datasets

    name = f"Hub data set {source['path']!r} (config {source.get('config')}, split {source['split']})"
    column = source["text_column"]
    try:
        dataset = datasets.load_dataset(
            source["path"],
            source.get("config"),
            split=source["split"],
            revision=source.get("revision"),
            streaming=True,
        )
        if dataset.num_shards < source["shards"]:
            raise DataError(
                f"{name} has {dataset.num_shards} data files; `shards: {source['shards']}` must not exceed that"
            )
        for batch in dataset.shard(source["shards"], shard).iter(batch_size=BATCH_DOCS):
            if column not in batch:
                raise DataError(f"{name}: no text column {column!r} (columns: {', '.join(batch)})")
            yield pa.array(batch[column], pa.string())
    except DataError:
        raise
    except Exception as error:  # noqa: BLE001 - any failure to reach or read the Hub is reported the same way
        raise DataError(f"could not load {name}: {type(error).__name__}: {error}") from None


def read_documents(source: dict, files: list[str], shard: int) -> Iterator[pa.Array]:
    """Batches of one shard's document texts, in a fixed order."""
    kind = "text" if source["type"] == "embedded" else source.get("format")
    if source["type"] == "hub":
        return _hub(source, shard)
    if kind == "text":
        return _batched(_text_files(files))
    if kind == "lines":
        return _batched(_lines(files))
    if kind == "jsonl":
        return _batched(_jsonl(files, source["text_column"]))
    if kind == "parquet":
        return _parquet(files, source["text_column"])
    return _arrow(files, source["text_column"])
