"""prepare_task: read a fine-tuning task's labelled examples, carve and check its splits, write them as Arrow files."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.settings_files import read_settings
from snakebert.finetune.prepare import prepare_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--task", required=True, help="the task's entry in finetune.tasks, in a settings file")
    parser.add_argument("--out", required=True, help="the folder to write")
    args = parser.parse_args()
    print(json.dumps(prepare_task(read_settings(args.task), args.out).splits))


if __name__ == "__main__":
    run_cli(main)
