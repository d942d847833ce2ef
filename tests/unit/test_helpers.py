"""The tests' own helpers (tests/helpers.py) that a test's outcome rests on."""

import signal
import subprocess
import sys

from helpers import wait_all


def test_a_failed_process_ends_the_wait_for_its_peers_at_once():
    codes = ("raise SystemExit(3)", "input()")
    peers = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE) for code in codes]
    assert wait_all(peers, timeout=120) == [3, -signal.SIGKILL]  # the second would wait for input for ever
