"""evaluate: MLM loss, perplexity and masked-token accuracy of the pretrained model on held-out blocks."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.json_views import as_json
from snakebert.files.settings_files import read_settings
from snakebert.training.eval_metrics import write_eval_metrics
from snakebert.training.evaluate import evaluate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--manifest", required=True)
    parser.add_argument(
        "--evaluate", required=True, help="the `evaluate` config (without its probes), in a settings file"
    )
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for torch (0: torch's default)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    metrics = evaluate(args.model, args.manifest, read_settings(args.evaluate), args.threads)
    write_eval_metrics(args.out, metrics)
    print(json.dumps(as_json(metrics)))


if __name__ == "__main__":
    run_cli(main)
