"""minhash_shard: each document's near-duplicate keys (MinHash bands) of one text shard."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.minhash import write_signatures
from snakebert.errors import run_cli
from snakebert.files.settings_files import read_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--settings", required=True, help="clean.near_dedup's settings, in a settings file")
    parser.add_argument("--out", required=True)
    parser.add_argument("raw_shard")
    args = parser.parse_args()
    signed = write_signatures(args.raw_shard, read_settings(args.settings), args.out)
    print(json.dumps({"documents_with_ngrams": signed}))


if __name__ == "__main__":
    run_cli(main)
