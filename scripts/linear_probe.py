"""linear_probe: one model frozen, a logistic regression on its mean-pooled features, fitted on a prepared task's train
split with its strength chosen on validation; one result per seed."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments
from snakebert.finetune.kinds import JOB_KINDS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--task", required=True, help="prepare_task's folder")
    parser.add_argument("--name", required=True)
    parser.add_argument("--kind", choices=JOB_KINDS, required=True)
    parser.add_argument("--source", required=True, help="the model to probe: a folder or a Hub id")
    parser.add_argument("--max-length", type=int, required=True)
    parser.add_argument("--batch-size", type=int, required=True)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", nargs="+", required=True, help="one result file per seed, seed 1 first")
    args = parse_arguments(parser)
    import torch

    from snakebert.finetune.linear_probe import probe_model

    if args.threads:
        torch.set_num_threads(args.threads)
    found = probe_model(args.task, args.name, args.kind, args.source, args.max_length, args.batch_size, args.out)
    print(json.dumps({"validation": found.validation, "test": found.test}))


if __name__ == "__main__":
    run_cli(main)
