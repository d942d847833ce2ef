"""find_duplicates: list every document that repeats an earlier one, or near-duplicates it, across all text shards."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.dedup import find_duplicates
from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("--samples", required=True, help="the first few of each kind beside what they repeat (JSON)")
    parser.add_argument("--disabled", action="store_true", help="find nothing (clean.dedup: false)")
    parser.add_argument("--signatures", nargs="*", default=[], help="each shard's (minhash_shard), in corpus order")
    parser.add_argument("raw_shards", nargs="+", help="all text shards, in corpus order")
    args = parse_arguments(parser)
    found = find_duplicates(
        args.raw_shards, args.out, enabled=not args.disabled, signatures=args.signatures, samples=args.samples
    )
    print(json.dumps({"duplicates": found}))


if __name__ == "__main__":
    run_cli(main)
