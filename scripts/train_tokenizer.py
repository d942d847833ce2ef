"""train_tokenizer: train the BERT WordPiece tokenizer on a sample of the deduplicated corpus."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.tokenizer import train_tokenizer
from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments, read_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokenizer", required=True, help="the `tokenizer` config, in a settings file")
    parser.add_argument("--duplicates", required=True)
    parser.add_argument("--raw", nargs="+", required=True, help="the text shards, in corpus order")
    parser.add_argument("--stats", nargs="+", required=True, help="their counts, in the same order")
    parser.add_argument("--out", required=True)
    args = parse_arguments(parser)
    train_tokenizer(args.raw, args.stats, args.duplicates, read_settings(args.tokenizer), args.out)


if __name__ == "__main__":
    run_cli(main)
