"""SHA-256 of a file, streamed (memory stays flat whatever the file's size)."""

import hashlib


def sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
