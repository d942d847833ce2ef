"""plot_data: the report's data figure (what cleaning kept, tokens per shard, document lengths)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments
from snakebert.report.data_plot import plot_data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("token_shards", nargs="+")
    args = parse_arguments(parser)
    plot_data(args.manifest, args.token_shards, args.out)


if __name__ == "__main__":
    run_cli(main)
