"""torchrun, run in this process (scripts/torch_spawn.py): a stop signal to the launcher reaches every rank, and
ranks that stopped on request make the launch exit with errors.STOPPED_EXIT and one line.

torchrun's own handling of SIGTERM ends the launch at once with a failure of its own, after passing the signal on;
here the launcher instead passes SIGTERM, SIGINT and SIGUSR1 to its ranks and keeps watching them, so that the
launch ends as the ranks do: stopped, with a checkpoint, or failed. A rank that has not exited
signal_relay.SHUTDOWN_SECONDS after the first signal is killed."""

import sys

from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
from torch.distributed.run import get_args_parser, run

from ..errors import STOPPED_EXIT, StoppedOnRequest
from .signal_relay import SignalRelay

TORCHRUN_HANDLES = "SIGHUP,SIGQUIT"  # the signals torchrun itself handles; the stop signals are SignalRelay's


def launch(arguments: list[str]) -> None:
    """torchrun with `arguments` (its flags, the script and the script's arguments)."""
    SignalRelay().install()
    try:
        run(get_args_parser().parse_args([f"--signals_to_handle={TORCHRUN_HANDLES}", *arguments]))
    except ChildFailedError as failed:
        if any(failure.exitcode == STOPPED_EXIT for failure in failed.failures.values()):
            raise StoppedOnRequest("the ranks stopped on request: their lines above name the checkpoint") from None
        print(failed.format_msg(), file=sys.stderr)
        sys.exit(1)
