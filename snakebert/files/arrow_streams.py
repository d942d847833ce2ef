"""The workflow's own Arrow IPC stream files (text, token and block shards, the duplicates table, fine-tuning
splits): written atomically, read memory-mapped. A file that cannot be read, such as one truncated by a full disk or
changed by hand, is named, with what to do."""

from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa

from . import unreadable
from .atomic import atomic_path


@contextmanager
def stream_writer(path, schema: pa.Schema) -> Iterator[pa.RecordBatchStreamWriter]:
    """A writer of the stream file `path`, which appears only once the block succeeds (see atomic_path)."""
    with atomic_path(path) as tmp, pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_stream(sink, schema) as writer:
        yield writer


def stream_batches(path: str, what: str = "Arrow stream") -> Iterator[pa.RecordBatch]:
    """The record batches of `path`, one at a time; a file that cannot be read is named as `what`. The batches
    are views of the mapped file, valid after the last one is read."""
    try:
        with pa.memory_map(str(path)) as source:
            yield from pa.ipc.open_stream(source)
    except (pa.ArrowException, OSError) as error:
        raise unreadable(path, what, error) from None


def stream_schema(path: str, what: str = "Arrow stream") -> pa.Schema:
    """The schema of `path`, read from its first message; a file that cannot be read is named as `what`."""
    try:
        with pa.memory_map(str(path)) as source:
            return pa.ipc.open_stream(source).schema
    except (pa.ArrowException, OSError) as error:
        raise unreadable(path, what, error) from None


def read_table(path: str) -> pa.Table:
    """The whole of `path` as one table (for the small files: hashes, the duplicates table)."""
    try:
        with pa.memory_map(str(path)) as source:
            return pa.ipc.open_stream(source).read_all()
    except (pa.ArrowException, OSError) as error:
        raise unreadable(path, "Arrow stream", error) from None
