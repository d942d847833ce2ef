"""A stop through gaudi_spawn's mpirun launch (optimum-habana's DistributedRunner and Open MPI's mpirun, for real, on
the CPU): every rank gets the signal, has the time to save, and the launch exits 75, whichever of its processes the
signal reaches."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from snakebert.launch.signal_relay import children

REPO = Path(__file__).resolve().parents[2]
LIMIT_SECONDS = 120


def descendants(pid: int) -> list[int]:
    """`pid` and every process under it."""
    found = [pid]
    for process in found:
        found += children(process)
    return found


def kill_all(pid: int) -> None:
    for process in descendants(pid):  # mpirun's ranks are in process groups of their own
        with contextlib.suppress(ProcessLookupError):
            os.kill(process, signal.SIGKILL)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        return probe.getsockname()[1]


def stopped_launch(tmp_path: Path, signalled, number: int) -> tuple[int, str]:
    """gaudi_spawn over mpirun with 2 ranks of mpirun_rank.py, sent signal `number` once both are ready: to the
    processes `signalled` picks from the launcher's PID; its exit status and output (a limit of LIMIT_SECONDS:
    mpirun's own kill sequence alone takes longer)."""
    command = [sys.executable, str(REPO / "scripts/gaudi_spawn.py"), "--world_size", "2", "--use_mpi"]
    command += ["--master_port", str(free_port()), str(REPO / "tests/hpu/mpirun_rank.py"), str(tmp_path)]
    environment = {**os.environ, "OMPI_MCA_rmaps_base_oversubscribe": "1"}  # 2 ranks whatever the cores
    launch = subprocess.Popen(
        command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    watchdog = threading.Timer(LIMIT_SECONDS, kill_all, (launch.pid,))
    watchdog.start()
    lines = []
    try:
        while "".join(lines).count(" ready") < 2:  # the ranks' lines may share one
            line = launch.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        for pid in signalled(launch.pid):
            os.kill(pid, number)
        lines.append(launch.stdout.read())
        return launch.wait(), "".join(lines)
    finally:
        watchdog.cancel()


def launcher_and_mpirun(pid: int) -> list[int]:
    """What a Ctrl-C reaches: the terminal's process group, which mpirun's ranks (in groups of their own) are not in."""
    return [pid, *children(pid)]


@pytest.mark.parametrize(
    "signalled, number",
    [(descendants, signal.SIGTERM), (lambda pid: [pid], signal.SIGTERM), (launcher_and_mpirun, signal.SIGINT)],
    ids=["every process of the launch, as SLURM signals a step", "the launcher alone", "the launcher and mpirun"],
)
def test_a_stop_signal_lets_every_rank_under_mpirun_save_and_the_launch_exits_75(tmp_path, signalled, number):
    status, output = stopped_launch(tmp_path, signalled, number)
    assert status == 75, output
    saved = sorted(path.name for path in tmp_path.iterdir())
    [step] = {name.split("-")[1] for name in saved}
    assert saved == [f"checkpoint-{step}-rank-0", f"checkpoint-{step}-rank-1"], output
    name = signal.Signals(number).name
    line = f"the ranks stopped on request: stopped on request ({name}) at step {step}: checkpoint saved in {tmp_path}"
    assert line in output, output
