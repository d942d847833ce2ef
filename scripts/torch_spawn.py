"""Launch a training script with torchrun, run in this process: alone, on this machine's devices (a local run), or
with --nodes on one node of a multi-node SLURM job, where srun runs this once per node and each node's torchrun
meets the others in a c10d rendezvous on the job's first node (from SLURM_JOB_NODELIST). The training script and
its arguments follow the flags.

torchrun passes SIGTERM, SIGINT and SIGUSR1 on to the ranks and waits up to SHUTDOWN_SECONDS for them to save and
stop. When the ranks stop on request (errors.STOPPED_EXIT), this exits with that status and one line, not torchrun's
failure report."""

import argparse
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from torch.distributed.elastic.multiprocessing.api import SignalException
from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
from torch.distributed.run import get_args_parser, run

from snakebert.errors import STOPPED_EXIT, StoppedOnRequest, run_cli
from snakebert.training.allocation import allocated_nodes, torchrun_arguments

FORWARDED = "SIGTERM,SIGINT,SIGUSR1,SIGHUP,SIGQUIT"
SHUTDOWN_SECONDS = 300  # after passing a signal on: time for a step and a checkpoint save before SIGKILL


def launch_arguments(nodes: int | None, ranks_per_node: int) -> list[str]:
    """torchrun's arguments: a standalone rendezvous without nodes, else the job's (allocation.py)."""
    if nodes is None:
        placement = ["--standalone", f"--nproc_per_node={ranks_per_node}"]
    else:
        placement = torchrun_arguments(allocated_nodes(os.environ, nodes), ranks_per_node, os.environ)
    return [*placement, f"--signals_to_handle={FORWARDED}", f"--shutdown_timeout={SHUTDOWN_SECONDS}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, help="the nodes pretrain asked SLURM for (none: this machine alone)")
    parser.add_argument("--nproc_per_node", type=int, required=True, help="ranks per node (its devices)")
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    arguments = [*launch_arguments(args.nodes, args.nproc_per_node), args.training_script]
    if os.environ.get("SLURM_NODEID", "0") == "0":
        ranks = (args.nodes or 1) * args.nproc_per_node
        print(f"launching {ranks} ranks: torchrun {' '.join(arguments)}", flush=True)
    try:
        run(get_args_parser().parse_args([*arguments, *args.training_script_args]))
    except ChildFailedError as failed:
        if any(failure.exitcode == STOPPED_EXIT for failure in failed.failures.values()):
            raise StoppedOnRequest("the ranks stopped on request: their lines above name the checkpoint") from None
        print(failed.format_msg(), file=sys.stderr)
        sys.exit(1)
    except SignalException as signalled:
        name = signal.Signals(signalled.sigval).name
        print(f"torchrun got {name}: it passed it to the ranks, which save and stop (their lines above say where)")
        sys.exit(128 + signalled.sigval)


if __name__ == "__main__":
    run_cli(main)
