"""Reading the workflow's own Arrow IPC stream files (text, token and block shards, the duplicates table). A file
that cannot be read, such as one truncated by a full disk or changed by hand, is named, with what to do."""

from collections.abc import Iterator

import pyarrow as pa

from ..errors import DataError


def _unreadable(path: str, error: Exception) -> DataError:
    return DataError(f"{path}: not a readable Arrow stream ({error}); delete it and rerun to rebuild it")


def stream_batches(path: str) -> Iterator[pa.RecordBatch]:
    """The record batches of `path`, memory-mapped, one at a time."""
    try:
        with pa.memory_map(str(path)) as source:
            yield from pa.ipc.open_stream(source)
    except (pa.ArrowException, OSError) as error:
        raise _unreadable(path, error) from None


def read_table(path: str) -> pa.Table:
    """The whole of `path` as one table (for the small files: hashes, the duplicates table)."""
    try:
        with pa.memory_map(str(path)) as source:
            return pa.ipc.open_stream(source).read_all()
    except (pa.ArrowException, OSError) as error:
        raise _unreadable(path, error) from None
