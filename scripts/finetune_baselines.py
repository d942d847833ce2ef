"""finetune_baselines: the majority class (or mean) and TF-IDF with a linear model on a prepared task."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.json_views import as_json
from snakebert.finetune.baselines import run_baselines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--task", required=True, help="prepare_task's folder")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    print(json.dumps(as_json(run_baselines(args.task, args.out))))


if __name__ == "__main__":
    run_cli(main)
