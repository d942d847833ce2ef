"""report_summary: the report's summary table of the data set, the training run and the evaluation."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments
from snakebert.report.summary import report_summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--eval-metrics", required=True)
    parser.add_argument("--calibration", help="results/calibration.json, shown against the run when it exists")
    parser.add_argument("--out", required=True)
    parser.add_argument("--finetune", nargs="*", default=[], help="each task's results/finetune/{task}/metrics.json")
    parser.add_argument("probes", nargs="?", help="results/eval/probes.json, when `evaluate.probes` lists prompts")
    args = parse_arguments(parser)
    report_summary(args.manifest, args.model, args.eval_metrics, args.out, args.calibration, args.probes, args.finetune)


if __name__ == "__main__":
    run_cli(main)
