"""summarize_finetune: a task's fine-tuning runs and baselines in one file, with the seed spread and what
pretraining bought."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.json_views import as_json
from snakebert.files.settings_files import parse_arguments
from snakebert.finetune.summary import summarize_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--task", required=True, help="the task's task.json")
    parser.add_argument("--baselines", nargs="+", required=True, help="the baselines' results, one per fold")
    parser.add_argument("--learning-rates", required=True, help="the task's learning-rate grid, as JSON")
    parser.add_argument("--out", required=True)
    parser.add_argument("--runs", nargs="*", default=[], help="the fine-tuning results")
    parser.add_argument("--linear-probes", nargs="*", default=[], help="the linear-probe results")
    parser.add_argument("--chosen", nargs="*", default=[], help="each fine-tuned model's learning-rate choice")
    args = parse_arguments(parser)
    grid = json.loads(args.learning_rates)
    summary = summarize_task(args.task, args.runs, args.linear_probes, grid, args.baselines, args.out, args.chosen)
    print(json.dumps(as_json(summary.pretraining_gain)))


if __name__ == "__main__":
    run_cli(main)
