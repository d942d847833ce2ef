"""plot_training: the report's training figure (losses, learning rate, gradient norm)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.report.training_plot import plot_training


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--eval-metrics", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    plot_training(args.model, args.eval_metrics, args.out)


if __name__ == "__main__":
    run_cli(main)
