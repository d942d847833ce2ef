"""Launch a training script on one node of a multi-node SLURM job with torchrun: srun runs this once per node, and
each node's torchrun meets the others in a c10d rendezvous on the job's first node (from SLURM_JOB_NODELIST).
The training script and its arguments follow the flags."""

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.training.allocation import allocated_nodes, torchrun_arguments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, required=True, help="the nodes pretrain asked SLURM for")
    parser.add_argument("--nproc_per_node", type=int, required=True, help="ranks per node (its devices)")
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    hosts = allocated_nodes(os.environ, args.nodes)
    command = ["torchrun", *torchrun_arguments(hosts, args.nproc_per_node, os.environ), args.training_script]
    if os.environ.get("SLURM_NODEID", "0") == "0":
        print(f"launching {len(hosts) * args.nproc_per_node} ranks: {' '.join(command)}", flush=True)
    os.execvp(command[0], [*command, *args.training_script_args])


if __name__ == "__main__":
    run_cli(main)
