"""model_card: the model's Hub card (README.md): data, tokenizer, dimensions, training, MLM and downstream results."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.cards.model import write_model_card
from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments, read_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True, help="the pretrained model's folder")
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--eval-metrics", required=True)
    parser.add_argument("--pretrain", required=True, help="the `pretrain` config, in a settings file")
    parser.add_argument("--out", required=True)
    parser.add_argument("finetune", nargs="*", help="the downstream tasks' metrics files")
    args = parse_arguments(parser)
    write_model_card(
        args.model, args.manifest, args.eval_metrics, read_settings(args.pretrain), args.finetune, args.out
    )


if __name__ == "__main__":
    run_cli(main)
