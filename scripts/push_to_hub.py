"""push_to_hub: publish the parts that have a Hub repository in the config (the token never passes through here)."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.errors import run_cli
from snakebert.files.json_files import write_json
from snakebert.files.settings_files import parse_arguments, read_settings
from snakebert.hub import push


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hub", required=True, help="the `hub` config, in a settings file")
    parser.add_argument("--uploads", required=True, help="{what: the files to send}, as JSON")
    parser.add_argument("--out", required=True)
    args = parse_arguments(parser)
    write_json(args.out, push(json.loads(args.uploads), read_settings(args.hub)))


if __name__ == "__main__":
    run_cli(main)
