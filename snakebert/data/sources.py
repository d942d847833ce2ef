"""The source types, one table: how each plans its shards when the workflow is parsed (the input files of each
shard) and how an ingest job reads one shard's documents. Adding a source type is an entry in SOURCE_TYPES, its two
functions, the schema's `type` enum and the tests (tests/unit/test_tables.py checks that the enum equals the keys)."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pyarrow as pa

from ..errors import DataError
from .formats import BATCH_DOCS, bounded, read_files
from .shards import embedded_files, group_files, source_files


@dataclass(frozen=True)
class SourceType:
    plan: Callable[[dict], list[list[str]]]  # (source) -> each shard's input files, in corpus order
    read: Callable[[dict, list[str], int], Iterator[pa.Array]]  # (source, a shard's files, shard) -> its texts


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


def _megabytes(source: dict) -> int:
    return int(source["shard_mb"] * 1_000_000)


SOURCE_TYPES = {
    "embedded": SourceType(
        plan=lambda source: group_files(embedded_files(source["corpus"]), _megabytes(source)),
        read=lambda source, files, shard: read_files("text", files, "text"),
    ),
    "files": SourceType(
        plan=lambda source: group_files(source_files(source), _megabytes(source)),
        read=lambda source, files, shard: read_files(source["format"], files, source["text_column"]),
    ),
    "hub": SourceType(
        plan=lambda source: [[] for _ in range(source["shards"])],  # the Hub's files are found by the job
        read=lambda source, files, shard: bounded(_hub(source, shard)),
    ),
}


def source_type(source: dict) -> SourceType:
    if source["type"] not in SOURCE_TYPES:
        raise DataError(
            f"source {source.get('name')!r}: unknown type {source['type']!r} (known: {', '.join(SOURCE_TYPES)})"
        )
    return SOURCE_TYPES[source["type"]]


def plan_source(source: dict) -> list[list[str]]:
    """One entry per shard: its input files (a `hub` source has `shards` entries without files)."""
    return source_type(source).plan(source)


def read_documents(source: dict, files: list[str], shard: int) -> Iterator[pa.Array]:
    """Batches of one shard's document texts, in a fixed order, each of bounded size."""
    return source_type(source).read(source, files, shard)
