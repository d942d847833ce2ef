"""SHA-256 of a file, streamed in 1 MiB chunks (memory stays flat whatever the file's size)."""

import hashlib


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
