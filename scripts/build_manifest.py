"""build_manifest: describe the packed data set in the manifest, the one file training reads."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the workflow's folder, which holds snakebert/

from snakebert.data.manifest import build_manifest, write_manifest
from snakebert.errors import run_cli
from snakebert.files.settings_files import parse_arguments, read_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", required=True, help="the `data` config, in a settings file")
    parser.add_argument("--config-digest", required=True, help="digest of the config sections that shape the data")
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--raw", nargs="+", required=True, help="the text shards, in corpus order")
    parser.add_argument("--raw-stats", nargs="+", required=True)
    parser.add_argument("--token-stats", nargs="+", required=True)
    parser.add_argument("--blocks", nargs="+", required=True)
    parser.add_argument("--block-stats", nargs="+", required=True)
    parser.add_argument("--phase-sizes", nargs="*", type=int, default=[], help="the phases' other block sizes")
    parser.add_argument("--phase-blocks", nargs="*", default=[], help="their block files, size by size")
    parser.add_argument("--phase-block-stats", nargs="*", default=[])
    parser.add_argument("--out", required=True)
    args = parse_arguments(parser)
    shards = list(zip(args.raw, args.raw_stats, args.token_stats, args.blocks, args.block_stats, strict=True))
    packed = list(zip(args.phase_blocks, args.phase_block_stats, strict=True))
    packings = {
        size: packed[index * len(shards) : (index + 1) * len(shards)] for index, size in enumerate(args.phase_sizes)
    }
    data = read_settings(args.data)
    manifest = build_manifest(shards, args.tokenizer, data, args.config_digest, args.out, packings)
    write_manifest(manifest, args.out)


if __name__ == "__main__":
    run_cli(main)
