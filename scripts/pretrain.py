"""pretrain: pretrain BERT with masked language modelling on the manifest's blocks, resuming from a checkpoint of
the same run when there is one. Started once per rank by the backend's launcher."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.training.backends import BACKENDS, GAUDI_CONFIG
from snakebert.training.pretrain import pretrain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--model", required=True, help="the `model` config, as JSON")
    parser.add_argument("--settings", required=True, help="the `pretrain` config, as JSON")
    parser.add_argument("--backend", choices=list(BACKENDS), required=True, help="resolved by the workflow")
    parser.add_argument("--world-size", type=int, required=True, help="the ranks the workflow launches")
    parser.add_argument("--checkpoints", required=True, help="checkpoint folder, outside the rule's outputs")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for torch (0: torch's default)")
    parser.add_argument("--gaudi-config", default=str(GAUDI_CONFIG), help="the GaudiConfig JSON file")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    metrics = pretrain(
        args.manifest,
        args.tokenizer,
        json.loads(args.model),
        json.loads(args.settings),
        args.backend,
        args.checkpoints,
        args.out,
        planned_world_size=args.world_size,
        gaudi_config=args.gaudi_config,
        threads=args.threads,
    )
    print(json.dumps(metrics))


if __name__ == "__main__":
    run_cli(main)
