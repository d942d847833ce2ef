"""pack_shard: pack one shard's token stream into fixed-size blocks, and count what it wrote."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.pack import pack_shard
from snakebert.errors import run_cli


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--block-size", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("tokens")
    args = parser.parse_args()
    pack_shard(args.tokens, args.block_size, args.out, args.stats)


if __name__ == "__main__":
    run_cli(main)
