"""tokenize_shard: tokenize every document of one text shard whole, and count what it wrote."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.tokens import tokenize_shard
from snakebert.errors import run_cli


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--duplicates", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("raw_shard")
    args = parser.parse_args()
    tokenize_shard(args.raw_shard, args.tokenizer, args.duplicates, args.out, args.stats)


if __name__ == "__main__":
    run_cli(main)
