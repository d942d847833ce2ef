"""ingest_shard: read one shard of a source, clean it, and write its text shard and its counts."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.ingest import ingest_shard
from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments, read_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", required=True, help="the source's config entry, in a settings file")
    parser.add_argument("--clean", required=True, help="the `clean` config, in a settings file")
    parser.add_argument("--shard", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("files", nargs="*")
    args = parse_arguments(parser)
    ingest_shard(read_settings(args.source), read_settings(args.clean), args.files, args.shard, args.out, args.stats)


if __name__ == "__main__":
    run_cli(main)
