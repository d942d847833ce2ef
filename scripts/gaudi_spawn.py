"""Launch a training script on Gaudi: optimum-habana's DistributedRunner, with the flags of its gaudi_spawn.py.

`--use_mpi --world_size 8` runs 8 ranks on one DL1 node through mpirun, and passes a stop signal on to them
(snakebert/launch/mpirun.py). `--use_deepspeed --world_size 32 --nodes 4` runs 8 ranks on each of the SLURM job's
4 nodes through DeepSpeed, over a hostfile built from SLURM_JOB_NODELIST (or `--hostfile F`, your own). The training
script and its arguments follow the flags.
"""

import argparse
import os
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.launch.allocation import allocated_nodes, check_multi_node_launch, hostfile
from snakebert.launch.mpirun import launch


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--world_size", type=int, default=1, help="number of HPUs (ranks), over all nodes")
    parser.add_argument("--nodes", type=int, default=1, help="SLURM nodes (the hostfile is built from the job's)")
    parser.add_argument("--hostfile", default=None, help="your own DeepSpeed hostfile, for several nodes")
    parser.add_argument("--use_mpi", action="store_true", help="launch with mpirun (one node)")
    parser.add_argument("--use_deepspeed", action="store_true", help="launch with deepspeed")
    parser.add_argument("--master_port", type=int, default=29500)
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.use_mpi and args.use_deepspeed:
        parser.error("--use_mpi and --use_deepspeed exclude each other")
    if args.nodes > 1 and not args.use_deepspeed:
        parser.error("several nodes need --use_deepspeed (mpirun runs on one node)")
    if args.world_size % args.nodes:
        parser.error(f"--world_size {args.world_size} is not a whole number of HPUs on each of {args.nodes} nodes")
    return args


def slurm_hostfile(args: argparse.Namespace, folder: str) -> str:
    """A hostfile of the SLURM job's nodes, world_size / nodes slots each, after checking that DeepSpeed can start
    ranks on every node."""
    hosts = allocated_nodes(os.environ, args.nodes)
    check_multi_node_launch(hosts)
    path = Path(folder) / "hostfile"
    path.write_text(hostfile(hosts, args.world_size // args.nodes))
    print(f"launching {args.world_size} ranks on {args.nodes} nodes: {path}\n{path.read_text()}", flush=True)
    return str(path)


def runner(args: argparse.Namespace):
    """The DistributedRunner for these flags (its command is built when it is created)."""
    from optimum.habana.distributed import DistributedRunner

    command = shlex.join([args.training_script, *args.training_script_args])
    return DistributedRunner(
        command_list=[command],
        world_size=args.world_size,
        hostfile=args.hostfile,
        use_mpi=args.use_mpi,
        use_deepspeed=args.use_deepspeed,
        master_port=args.master_port,
    )


def main() -> None:
    args = parse(sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="snakebert-hostfile-") as folder:
        if args.nodes > 1 and args.hostfile is None:
            args.hostfile = slurm_hostfile(args, folder)
        spawn = runner(args)
        sys.exit(launch(spawn, args.world_size) if args.use_mpi else spawn.run())


if __name__ == "__main__":
    run_cli(main)
