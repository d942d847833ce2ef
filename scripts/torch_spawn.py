"""Launch a training script with torchrun, run in this process (snakebert/launch/torchrun.py): alone, on this
machine's devices (a local run), or with --nodes on one node of a multi-node SLURM job, where srun runs this once per
node and each node's torchrun meets the others in a c10d rendezvous on the job's first node (from
SLURM_JOB_NODELIST). The training script and its arguments follow the flags."""

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.launch.allocation import allocated_nodes, torchrun_arguments
from snakebert.launch.torchrun import launch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, help="the nodes pretrain asked SLURM for (none: this machine alone)")
    parser.add_argument("--nproc_per_node", type=int, required=True, help="ranks per node (its devices)")
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.nodes is None:
        placement = ["--standalone", f"--nproc_per_node={args.nproc_per_node}"]
    else:
        placement = torchrun_arguments(allocated_nodes(os.environ, args.nodes), args.nproc_per_node, os.environ)
    if os.environ.get("SLURM_NODEID", "0") == "0":
        ranks = (args.nodes or 1) * args.nproc_per_node
        print(f"launching {ranks} ranks: torchrun {' '.join([*placement, args.training_script])}", flush=True)
    launch([*placement, args.training_script, *args.training_script_args])


if __name__ == "__main__":
    run_cli(main)
