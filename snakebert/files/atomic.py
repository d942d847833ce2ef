"""Write outputs under a temporary name and rename them into place only when complete."""

import errno
import glob
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import DataError


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary sibling of `path`; rename it to `path` if the block succeeds, remove it if not.

    Works for files and directories: a killed or failed job never leaves `path` looking complete, and the next job
    for `path` removes the temporaries a killed one left (one job at a time writes an output).
    """
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    for stale in final.parent.glob(f".{glob.escape(final.name)}.tmp-*"):  # left by a killed job for this output
        _remove(stale)
    tmp = final.with_name(f".{final.name}.tmp-{os.getpid()}")
    try:
        yield tmp
        _remove(final)
        os.replace(tmp, final)
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        raise DataError(no_space(final, tmp)) from None
    finally:
        _remove(tmp)


def replace_text(path: Path, text: str) -> None:
    """Write `path` whole by renaming a file staged under this process's id onto it: writers that run at once (the
    parses of one workflow by concurrent jobs) never leave it half written, and the last rename stands."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, path)


def no_space(final: Path, tmp: Path) -> str:
    """What a full disk cost the output `final`: the bytes of it written (it needs more), and what is free there."""
    written = sum(part.stat().st_size for part in [tmp, *tmp.rglob("*")] if part.is_file()) if tmp.exists() else 0
    free = shutil.disk_usage(final.parent).free
    return (
        f"{final}: no space left on device after {written:,} bytes of it were written ({free:,} bytes free in "
        f"{final.parent}); free some space and rerun"
    )


FULL = 1 << 20  # bytes free below which a failed write is taken for a full disk (torch reports no errno)


@contextmanager
def naming_a_full_disk(folder: str | os.PathLike, what: str) -> Iterator[None]:
    """Run the block; a failure while `folder` (`what` it holds: checkpoints) is on a full disk becomes a DataError
    naming the folder and what is free there. The writers of checkpoints report a full disk in their own ways, most
    without an errno (torch: `basic_ios::clear: iostream error`; safetensors: an error of its own), so any failure
    counts when less than FULL bytes are free; a DataError already names what failed."""
    try:
        yield
    except DataError:
        raise
    except Exception as error:
        place = Path(folder)
        while not place.exists():
            place = place.parent
        free = shutil.disk_usage(place).free
        if getattr(error, "errno", None) != errno.ENOSPC and free >= FULL:
            raise
        raise DataError(
            f"{folder}: no space left on device for the {what} ({free:,} bytes free in {place}); free some space and "
            "rerun (a complete checkpoint is resumed from)"
        ) from None


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
