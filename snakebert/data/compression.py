"""Compressed input files, chosen by the file's extension and decompressed as a stream (memory stays flat): gzip,
bzip2, xz and zstd, as the large public corpora ship (C4, the Pile, OSCAR and RedPajama are .jsonl.gz or .jsonl.zst).
A file that cannot be decompressed is named, with the codec."""

import bz2
import gzip
import io
import lzma
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ..errors import DataError


class _ZstdStream(io.RawIOBase):
    """The decompressed bytes of a .zst file, frame after frame; a file that ends inside a frame is an error (the
    library's stream reader would end quietly, and a truncated corpus would pass for a shorter one)."""

    def __init__(self, path: str) -> None:
        import zstandard  # only for .zst files

        self._file = open(path, "rb")  # noqa: SIM115 - closed in close()
        self._frame = zstandard.ZstdDecompressor().decompressobj
        self._error = zstandard.ZstdError
        self._decompressor = self._frame()
        self._pending, self._at = b"", 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while self._at == len(self._pending):
            chunk = self._file.read(1 << 20)
            if not chunk:
                if not self._decompressor.eof:
                    raise self._error("the file ends inside a frame: it is truncated")
                return 0
            out = self._decompressor.decompress(chunk)
            while self._decompressor.eof and self._decompressor.unused_data:  # the next frame starts here
                rest, self._decompressor = self._decompressor.unused_data, self._frame()
                out += self._decompressor.decompress(rest)
            self._pending, self._at = out, 0
        size = min(len(buffer), len(self._pending) - self._at)
        buffer[:size] = self._pending[self._at : self._at + size]
        self._at += size
        return size

    def close(self) -> None:
        self._file.close()
        super().close()


def _zstd(path: str) -> BinaryIO:
    return io.BufferedReader(_ZstdStream(path), buffer_size=1 << 20)


CODECS = {  # extension: (name, opener of a binary stream of the decompressed bytes)
    ".gz": ("gzip", gzip.open),
    ".bz2": ("bzip2", bz2.open),
    ".xz": ("xz", lzma.open),
    ".zst": ("zstd", _zstd),
}


def _codec_errors() -> tuple[type[Exception], ...]:
    errors = [OSError, EOFError, lzma.LZMAError, zlib.error]
    try:
        import zstandard

        errors.append(zstandard.ZstdError)
    except ImportError:
        pass
    return tuple(errors)


def codec(path: str) -> str | None:
    """The codec of `path`, from its extension (None: not compressed)."""
    found = CODECS.get(Path(path).suffix.lower())
    return found[0] if found else None


@contextmanager
def open_input(path: str) -> Iterator[BinaryIO]:
    """`path` opened for reading its (decompressed) bytes; failing to open or decompress it is a DataError naming
    the file, raised wherever in the `with` block the stream fails (a truncated file fails at its end)."""
    name, opener = CODECS.get(Path(path).suffix.lower(), (None, lambda file: open(file, "rb")))  # noqa: SIM115
    try:
        handle = opener(path)
    except OSError as error:
        raise DataError(f"{path}: cannot open ({error.strerror or error})") from None
    try:
        with handle:
            yield handle
    except _codec_errors() as error:
        what = f"as {name}" if name else "it"
        raise DataError(f"{path}: cannot read {what} ({type(error).__name__}: {error})") from None
