"""The source types, one table: how each plans its shards when the workflow is parsed (the input files of each
shard) and how an ingest job reads one shard's documents. Adding a source type is an entry in SOURCE_TYPES, its two
functions, the schema's `type` enum and the tests (tests/unit/test_tables.py checks that the enum equals the keys)."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pyarrow as pa

from ..errors import DataError
from .formats import bounded, read_files
from .hub_source import read_hub
from .shards import embedded_files, files_at_open, group_files, shard_name, source_files
from .task_source import read_task_text, task_data


@dataclass(frozen=True)
class SourceType:
    plan: Callable[[dict], list[list[str]]]  # (source) -> each shard's input files, in corpus order
    read: Callable[[dict, list[str], int, int], Iterator[pa.Array]]  # (source, a shard's files, shard, the
    # longest document allowed) -> its texts


def _megabytes(source: dict) -> int:
    return int(source["shard_mb"] * 1_000_000)


SOURCE_TYPES = {
    "embedded": SourceType(
        plan=lambda source: group_files(embedded_files(source["corpus"]), _megabytes(source)),
        read=lambda source, files, shard, limit: read_files("text", files, "text", limit),
    ),
    "files": SourceType(
        plan=lambda source: group_files(source_files(source), _megabytes(source)),
        read=lambda source, files, shard, limit: read_files(
            source["format"], files_at_open(source, files), source["text_column"], limit
        ),
    ),
    "hub": SourceType(
        plan=lambda source: [[] for _ in range(source["shards"])],  # the Hub's files are found by the job
        read=lambda source, files, shard, limit: bounded(read_hub(source, shard, limit)),
    ),
    "task": SourceType(
        plan=lambda source: [[task_data(source["task"])]],  # one shard: the task's prepared splits
        read=lambda source, files, shard, limit: read_task_text(files[0], limit),
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


def plan_corpus(sources: list[dict]) -> dict[str, dict[str, list[str]]]:
    """{source name: {shard name: its input files}}, in corpus order: the shards of every source, from the files
    found now."""
    return {
        source["name"]: {shard_name(index): files for index, files in enumerate(plan_source(source))}
        for source in sources
    }


def read_documents(source: dict, files: list[str], shard: int, max_doc_chars: int) -> Iterator[pa.Array]:
    """Batches of one shard's document texts, in a fixed order, each of bounded size; a document longer than
    `max_doc_chars` characters is refused, naming where it is."""
    return source_type(source).read(source, files, shard, max_doc_chars)
