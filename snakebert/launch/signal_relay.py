"""A launcher's signal relay, its part in a stop: it passes each stop signal it gets on to the ranks, which save and
stop (training/stop_request.py), and kills the ranks still running SHUTDOWN_SECONDS after the first signal."""

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

from ..stop_signals import STOP_SIGNALS

SHUTDOWN_SECONDS = 300  # after a stop signal: time for a step and a checkpoint save


def children(parent: int | None = None) -> list[int]:
    """The PIDs of the running children of `parent` (this process by default), not those that have exited and
    wait to be reaped."""
    parent = parent or os.getpid()
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent_of = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, IndexError, ValueError):  # a process that ended while being read
            continue
        if parent_of == str(parent) and state != "Z":
            found.append(int(stat.parent.name))
    return found


def _signal_all(pids: list[int], number: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # one that has just exited
            os.kill(pid, number)


class SignalRelay:
    """Signal handlers that pass each stop signal on to the processes `targets` lists (this process's children by
    default), and kill them SHUTDOWN_SECONDS after the first."""

    def __init__(self, targets: Callable[[], list[int]] = children) -> None:
        self.targets = targets
        self.deadline = None

    @property
    def signalled(self) -> bool:
        return self.deadline is not None

    def install(self) -> None:
        for number in STOP_SIGNALS:
            signal.signal(number, self.handle)

    def handle(self, number: int, frame) -> None:
        _signal_all(self.targets(), number)
        if self.deadline is None:
            self.deadline = threading.Timer(SHUTDOWN_SECONDS, lambda: _signal_all(self.targets(), signal.SIGKILL))
            self.deadline.daemon = True
            self.deadline.start()
