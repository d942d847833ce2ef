"""calibrate: time a short burst of real training steps with pretrain's launcher, model, data and settings, and
project the wall time (and cost) of pretrain.max_steps. Started once per rank by the backend's launcher."""

import time

STARTED = time.monotonic()  # the job's start, which the projected wall time counts from

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.training.backends import BACKENDS, GAUDI_CONFIG
from snakebert.training.calibration import calibrate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--model", required=True, help="the `model` config, as JSON")
    parser.add_argument("--settings", required=True, help="the `pretrain` config, as JSON")
    parser.add_argument("--calibration", required=True, help="the `calibrate` config, as JSON")
    parser.add_argument("--backend", choices=list(BACKENDS), required=True, help="resolved by the workflow")
    parser.add_argument("--world-size", type=int, required=True, help="the ranks the workflow launches")
    parser.add_argument("--nodes", type=int, default=1, help="the nodes the job runs on (the cost counts them)")
    parser.add_argument("--checkpoints", required=True, help="where the burst saves its one checkpoint")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for torch (0: torch's default)")
    parser.add_argument("--gaudi-config", default=str(GAUDI_CONFIG), help="the GaudiConfig JSON file")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    calibrate(
        args.manifest,
        args.tokenizer,
        json.loads(args.model),
        json.loads(args.settings),
        args.backend,
        args.checkpoints,
        args.out,
        json.loads(args.calibration),
        nodes=args.nodes,
        started=STARTED,
        planned_world_size=args.world_size,
        gaudi_config=args.gaudi_config,
        threads=args.threads,
    )


if __name__ == "__main__":
    run_cli(main)
