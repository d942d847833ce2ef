"""The pipeline's own files, each written by one job and read by the jobs after it: atomic writes, SHA-256
checksums, Arrow IPC streams, JSON files and the token and block format; and the error for one of them that cannot
be read."""

from ..errors import DataError

REBUILD = "delete it and rerun to rebuild it"


def unreadable(path, what: str, error: Exception) -> DataError:
    return DataError(f"{path}: not a readable {what} ({error}); {REBUILD}")
