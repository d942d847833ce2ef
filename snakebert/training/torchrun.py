"""torchrun, run in this process (scripts/torch_spawn.py): a stop signal to the launcher reaches every rank, and
ranks that stopped on request make the launch exit with errors.STOPPED_EXIT and one line.

torchrun's own handling of SIGTERM ends the launch at once with a failure of its own, after passing the signal on;
here the launcher instead passes SIGTERM, SIGINT and SIGUSR1 to its ranks and keeps watching them, so that the
launch ends as the ranks do: stopped, with a checkpoint, or failed. A rank that has not exited SHUTDOWN_SECONDS
after the first signal is killed."""

import contextlib
import os
import signal
import sys
import threading
from pathlib import Path

from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
from torch.distributed.run import get_args_parser, run

from ..errors import STOPPED_EXIT, StoppedOnRequest
from .stop_request import STOP_SIGNALS

TORCHRUN_HANDLES = "SIGHUP,SIGQUIT"  # the signals torchrun itself handles; the stop signals are this module's
SHUTDOWN_SECONDS = 300  # after a stop signal: time for a step and a checkpoint save


def children() -> list[int]:
    """The PIDs of this process's children (torchrun's ranks)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):  # a process that ended while being read
            continue
        if parent == os.getpid():
            found.append(int(stat.parent.name))
    return found


def _signal_children(number: int) -> None:
    for pid in children():
        with contextlib.suppress(ProcessLookupError):  # a rank that has just exited
            os.kill(pid, number)


class PassOn:
    """Signal handlers that pass each stop signal on to the ranks, and kill them SHUTDOWN_SECONDS after the first."""

    def __init__(self) -> None:
        self.deadline = None

    def install(self) -> None:
        for number in STOP_SIGNALS:
            signal.signal(number, self.handle)

    def handle(self, number: int, frame) -> None:
        _signal_children(number)
        if self.deadline is None:
            self.deadline = threading.Timer(SHUTDOWN_SECONDS, _signal_children, (signal.SIGKILL,))
            self.deadline.daemon = True
            self.deadline.start()


def launch(arguments: list[str]) -> None:
    """torchrun with `arguments` (its flags, the script and the script's arguments)."""
    PassOn().install()
    try:
        run(get_args_parser().parse_args([f"--signals_to_handle={TORCHRUN_HANDLES}", *arguments]))
    except ChildFailedError as failed:
        if any(failure.exitcode == STOPPED_EXIT for failure in failed.failures.values()):
            raise StoppedOnRequest("the ranks stopped on request: their lines above name the checkpoint") from None
        print(failed.format_msg(), file=sys.stderr)
        sys.exit(1)
