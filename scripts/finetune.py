"""finetune: one fine-tuning run of one model with one seed on a prepared task; the best epoch on validation, scored."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.json_views import as_json
from snakebert.files.settings_files import parse_arguments
from snakebert.finetune.job import FinetuneJob, job_from
from snakebert.finetune.train import finetune
from snakebert.job_arguments import add_arguments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_arguments(parser, FinetuneJob)
    parser.add_argument("--out", required=True)
    args = parse_arguments(parser)
    print(json.dumps(as_json(finetune(job_from(args), args.out))))


if __name__ == "__main__":
    run_cli(main)
