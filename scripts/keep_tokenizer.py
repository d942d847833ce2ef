"""keep_tokenizer: a continued run's tokenizer, the `model.init_from` base's own, saved unchanged (with
`tokenizer.add_tokens`, words of the corpus appended to its vocabulary)."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.base_tokenizer import keep_tokenizer
from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", required=True, help="model.init_from: a model folder or a Hub id")
    parser.add_argument("--add-tokens", type=int, default=0, help="tokenizer.add_tokens")
    parser.add_argument("--duplicates", help="the corpus's duplicates table (with --add-tokens)")
    parser.add_argument("--raw", nargs="*", default=[], help="the corpus's text shards (with --add-tokens)")
    parser.add_argument("--out", required=True)
    args = parse_arguments(parser)
    print(json.dumps(keep_tokenizer(args.base, args.out, args.add_tokens, args.raw, args.duplicates)))


if __name__ == "__main__":
    run_cli(main)
