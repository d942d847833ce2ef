"""plot_downstream: the report's downstream figure (each task's models and baselines, with the seed spread)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments
from snakebert.report.downstream_plot import plot_downstream


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("metrics", nargs="+", help="each task's results/finetune/{task}/metrics.json")
    args = parse_arguments(parser)
    plot_downstream(args.metrics, args.out)


if __name__ == "__main__":
    run_cli(main)
