"""gaudi_spawn's launch over mpirun (scripts/gaudi_spawn.py --use_mpi): a stop signal to the launcher reaches every
rank, mpirun leaves the ranks the time to save, and ranks that stopped on request make the launch exit with
errors.STOPPED_EXIT and one line.

Open MPI's mpirun (4.1) answers SIGTERM or SIGINT by sending its ranks SIGCONT, SIGTERM and then SIGKILL, each
odls_base_sigkill_timeout seconds after the one before (1 by default: a rank in the middle of a save dies), and
handles nothing else in the meantime. So the launcher sets that timeout to half of signal_relay.SHUTDOWN_SECONDS, and
passes every stop signal on to the ranks themselves (mpirun's children, on this node), not through an mpirun that
may be in that sequence already (a Ctrl-C reaches the launcher and mpirun at once). mpirun's own status is 1
whenever it got a signal itself, as under SLURM, which signals every process of a step; so each rank that stops on
request leaves a file in a folder the launcher names (stop_signals.STOP_REPORTS), with its stop line, and the launch
stopped on request when every rank did. A signalled mpirun also waits out its whole kill sequence after its ranks
have exited, and then drops what they wrote last; the launcher ends it once it has no ranks left, and says their stop
line itself."""

import contextlib
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from ..errors import StoppedOnRequest
from ..stop_signals import STOP_REPORTS
from .signal_relay import SHUTDOWN_SECONDS, SignalRelay, children

KILL_WAIT = "OMPI_MCA_odls_base_sigkill_timeout"


def ranks() -> list[int]:
    """The ranks: the children of this process's child, mpirun (DistributedRunner's shell execs it)."""
    return [rank for mpirun in children() for rank in children(mpirun)]


def end_idle_mpirun(relay: SignalRelay) -> None:
    """Once a stop signal came, end the mpirun (this process's child) that has no ranks left: it is only waiting."""
    while True:
        time.sleep(1)
        for mpirun in children() if relay.signalled else []:
            if not children(mpirun):
                with contextlib.suppress(ProcessLookupError):  # it has just ended by itself
                    os.kill(mpirun, signal.SIGKILL)


def launch(runner, world_size: int) -> int | None:
    """Run optimum-habana's DistributedRunner `runner`, built for mpirun and `world_size` ranks, to its end: its
    status (None: all ranks succeeded), or StoppedOnRequest."""
    os.environ.setdefault(KILL_WAIT, str(SHUTDOWN_SECONDS // 2))
    relay = SignalRelay(ranks)
    relay.install()
    threading.Thread(target=end_idle_mpirun, args=(relay,), daemon=True).start()
    with tempfile.TemporaryDirectory(prefix="snakebert-stops-") as reports:
        os.environ[STOP_REPORTS] = reports
        status = runner.run()
        stops = [report.read_text() for report in Path(reports).iterdir()]
    if status and len(stops) == world_size:
        raise StoppedOnRequest(f"the ranks stopped on request: {'; '.join(sorted(set(stops)))}")
    if status and stops:
        print(f"{len(stops)} of {world_size} ranks stopped on request, and the others failed", file=sys.stderr)
    return status
