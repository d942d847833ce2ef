"""Launch a training script on Gaudi: optimum-habana's DistributedRunner, with the flags of its gaudi_spawn.py.

`--use_mpi --world_size 8` runs 8 ranks on one DL1 node through mpirun; `--use_deepspeed --hostfile F`
runs across nodes. The training script and its arguments follow the flags.
"""

import argparse
import shlex
import sys


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--world_size", type=int, default=1, help="number of HPUs (ranks)")
    parser.add_argument("--hostfile", default=None, help="DeepSpeed hostfile, for several nodes")
    parser.add_argument("--use_mpi", action="store_true", help="launch with mpirun (one node)")
    parser.add_argument("--use_deepspeed", action="store_true", help="launch with deepspeed")
    parser.add_argument("--master_port", type=int, default=29500)
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.use_mpi and args.use_deepspeed:
        parser.error("--use_mpi and --use_deepspeed exclude each other")
    return args


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
    sys.exit(runner(parse(sys.argv[1:])).run())


if __name__ == "__main__":
    main()
