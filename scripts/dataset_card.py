"""dataset_card: the packed data set's Hub card (README.md): the manifest's counts, files and how to read them."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.cards.dataset import write_dataset_card
from snakebert.errors import run_cli


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    write_dataset_card(args.manifest, args.out)


if __name__ == "__main__":
    run_cli(main)
