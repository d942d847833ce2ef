"""SHA-256 of a file, streamed (memory stays flat whatever the file's size), and of a set of files by name."""

import hashlib
from pathlib import Path


def sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def files_digest(paths: list[Path]) -> str:
    """SHA-256 over each file's name and SHA-256, in the order given: what a model folder is, for a fingerprint."""
    return hashlib.sha256("".join(f"{path.name}:{sha256(str(path))}" for path in paths).encode()).hexdigest()
