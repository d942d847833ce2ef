"""A full disk is named by the job that hit it: the output, the bytes it needed at least and what is free, with no
traceback and no output left behind. The disk is a real one: a small tmpfs mounted for the test (CI runs as root)."""

import subprocess
import sys

import pytest
from helpers import REPO

SHARD = "texts/shard-00000"


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs with no byte free."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        with pytest.raises(OSError, match="No space left on device"), (disk / "filler").open("wb") as filler:
            filler.write(b"x" * 128 * 1024)
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_a_full_disk_names_the_output_and_the_bytes(tiny_data, full_disk):
    tokens = tiny_data.root / "results" / "tokens" / f"{SHARD}.arrow"
    out, stats = full_disk / "blocks.arrow", full_disk / "blocks.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts/pack_shard.py"), "--block-size", "16", "--out", str(out),
         "--stats", str(stats), str(tokens)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    message = f"error: {out}: no space left on device after 0 bytes of it were written (0 bytes free in {full_disk})"
    assert f"{message}; free some space and rerun" in done.stderr
    assert sorted(path.name for path in full_disk.iterdir()) == ["filler"]
