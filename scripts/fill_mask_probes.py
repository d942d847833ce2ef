"""fill_mask_probes: the pretrained model's top 5 for each prompt of `evaluate.probes`, scored against its answers."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.json_files import read_json
from snakebert.files.json_views import as_json
from snakebert.training.fill_mask import fill_mask_probes
from snakebert.training.fill_mask_results import write_fill_mask_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--probes", required=True, help="a JSON file of `evaluate.probes`")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for torch (0: torch's default)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    results = fill_mask_probes(args.model, read_json(args.probes, "probes file"), args.threads)
    write_fill_mask_results(args.out, results)
    print(json.dumps(as_json(results)))


if __name__ == "__main__":
    run_cli(main)
