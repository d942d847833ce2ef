"""pretrain: pretrain BERT with masked language modelling on the manifest's blocks, resuming from a checkpoint of
the same run when there is one. Started once per rank by the backend's launcher."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.json_views import as_json
from snakebert.job_arguments import add_arguments
from snakebert.training.job import TrainingJob, job_from
from snakebert.training.pretrain import pretrain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_arguments(parser, TrainingJob)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    print(json.dumps(as_json(pretrain(job_from(args), args.out))))


if __name__ == "__main__":
    run_cli(main)
