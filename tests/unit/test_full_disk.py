"""A full disk is named by the job that hit it: the output, the bytes it needed at least and what is free, with no
traceback and no output left behind. The disk is a real one: a small tmpfs mounted for the test (CI runs as root)."""

import subprocess
import sys

from helpers import REPO

SHARD = "texts/shard-00000"


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
