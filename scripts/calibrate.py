"""calibrate: time a short burst of real training steps with pretrain's launcher, model, data and settings, and
project the wall time (and cost) of pretrain.max_steps. Started once per rank by the backend's launcher."""

import time

STARTED = time.monotonic()  # the job's start, which the projected wall time counts from

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.settings_files import read_settings
from snakebert.job_arguments import add_arguments
from snakebert.training.calibration import calibrate
from snakebert.training.job import TrainingJob, job_from


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_arguments(parser, TrainingJob)
    parser.add_argument("--out", required=True)
    parser.add_argument("--calibration", required=True, help="the `calibrate` config, in a settings file")
    parser.add_argument("--nodes", type=int, default=1, help="the nodes the job runs on (the cost counts them)")
    args = parser.parse_args()
    calibrate(job_from(args), args.out, read_settings(args.calibration), nodes=args.nodes, started=STARTED)


if __name__ == "__main__":
    run_cli(main)
