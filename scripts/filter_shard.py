"""filter_shard: the documents of one text shard that pass the language and quality rules, and what each removed."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.filtering import filter_shard
from snakebert.errors import run_cli
from snakebert.files.settings_files import read_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--settings", required=True, help="the filters' settings, in a settings file")
    parser.add_argument("--raw-stats", required=True, help="the text shard's stats, as ingest wrote them")
    parser.add_argument("--out", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument("raw_shard")
    args = parser.parse_args()
    counts = filter_shard(args.raw_shard, args.raw_stats, read_settings(args.settings), args.out, args.stats,
                          args.samples)  # fmt: skip
    print(json.dumps({key: counts[key] for key in ("docs", "chars", "filtered", "languages")}))


if __name__ == "__main__":
    run_cli(main)
