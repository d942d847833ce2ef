"""choose_rate: the learning rate of the task's grid that a model's search runs choose on validation, written once
for the model's later seeds and the task's summary."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments
from snakebert.finetune.chosen_file import write_chosen
from snakebert.finetune.rates import choose_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--task", required=True, help="the task's task.json")
    parser.add_argument("--learning-rates", required=True, help="the task's learning-rate grid, as JSON")
    parser.add_argument("--out", required=True)
    parser.add_argument("--search", nargs="+", required=True, help="the model's runs at every rate of the grid")
    args = parse_arguments(parser)
    chosen = choose_rate(args.task, args.search, json.loads(args.learning_rates))
    write_chosen(args.out, chosen)
    print(json.dumps({"model": chosen.model, "learning_rate": chosen.learning_rate}))


if __name__ == "__main__":
    run_cli(main)
