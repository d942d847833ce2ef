"""Describe the packed data set in results/dataset/manifest.json: the one file training reads."""

import argparse
import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa

from atomic import atomic_path
from checksum import sha256
from dedup import duplicate_rows, shard_key
from errors import DataError, run_cli

CLEANING_COUNTS = ("docs_read", "docs_null_or_empty", "docs_too_short", "chars_read", "chars")


def count_tokens(tokens_path: str) -> tuple[int, int, int]:
    """(documents, tokens, vocab size) of a token shard, from its offsets alone."""
    with pa.memory_map(tokens_path) as source:
        reader = pa.ipc.open_stream(source)
        vocab_size = int(reader.schema.metadata[b"vocab_size"])
        docs = tokens = 0
        for batch in reader:
            ids = batch.column("input_ids")
            docs += len(ids)
            tokens += int(ids.offsets[-1].as_py() - ids.offsets[0].as_py()) if len(ids) else 0
    return docs, tokens, vocab_size


def count_blocks(blocks_path: str) -> int:
    with pa.memory_map(blocks_path) as source:
        return sum(len(batch) for batch in pa.ipc.open_stream(source))


def validation_ranges(blocks: list[int], fraction: float, seed: int) -> list[dict]:
    """Per shard, one contiguous run of round(blocks * fraction) blocks at a seeded offset (few shared documents)."""
    ranges = []
    for index, count in enumerate(blocks):
        size = int(round(count * fraction))
        if size:
            start = int(np.random.default_rng([seed, index]).integers(0, count - size + 1))
            ranges.append({"shard": index, "start": start, "stop": start + size})
    return ranges


def build_manifest(
    blocks: list[str], tokens: list[str], raw: list[str], duplicates: str, data: dict, folder: str
) -> dict:
    """The manifest to be written into `folder`: shard paths are relative to it, so results/ can move."""
    skipped = duplicate_rows(duplicates)
    shards, vocab_sizes = [], set()
    for blocks_path, tokens_path, raw_path in zip(blocks, tokens, raw, strict=True):
        docs, token_count, vocab_size = count_tokens(tokens_path)
        vocab_sizes.add(vocab_size)
        block_count = count_blocks(blocks_path)
        cleaning = json.loads(Path(raw_path).with_suffix(".json").read_text())
        shards.append(
            {
                "path": os.path.relpath(blocks_path, folder),
                "text_shard": os.path.relpath(raw_path, folder),
                "source": cleaning["source"],
                "docs": docs,
                "tokens": token_count,
                "blocks": block_count,
                "dropped_tokens": token_count - block_count * data["block_size"],
                "sha256": sha256(blocks_path),
                "duplicates": len(skipped.get(shard_key(raw_path), [])),
                **{key: cleaning[key] for key in CLEANING_COUNTS},
            }
        )
    totals = {
        key: sum(shard[key] for shard in shards)
        for key in ("docs", "tokens", "blocks", "dropped_tokens", "duplicates", *CLEANING_COUNTS)
    }
    totals["kept_token_fraction"] = 1 - totals["dropped_tokens"] / max(totals["tokens"], 1)
    validation = validation_ranges([shard["blocks"] for shard in shards], data["validation_fraction"], data["seed"])
    validation_blocks = sum(run["stop"] - run["start"] for run in validation)
    largest = max(shard["blocks"] for shard in shards)
    if largest == 0:
        raise DataError(f"no shard holds a whole block of data.block_size ({data['block_size']}) tokens")
    if validation_blocks == 0:
        raise DataError(
            f"config data.validation_fraction ({data['validation_fraction']}) gives no validation blocks: "
            f"round(blocks x fraction) is 0 in every shard (the largest has {largest} blocks); training evaluates "
            f"on them, so raise it to at least {1 / largest:.3g}"
        )
    return {
        "block_size": data["block_size"],
        "vocab_size": vocab_sizes.pop(),
        "dtype": "uint16",
        "column": "input_ids",
        "shards": shards,
        "totals": totals,
        "split": {
            "validation_fraction": data["validation_fraction"],
            "validation": validation,
            "validation_blocks": validation_blocks,
            "train_blocks": totals["blocks"] - validation_blocks,
        },
        "shuffle_seed": data["seed"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", required=True, help="the `data` config, as JSON")
    parser.add_argument("--duplicates", required=True)
    parser.add_argument("--tokens", nargs="+", required=True)
    parser.add_argument("--raw", nargs="+", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--blocks", nargs="+", required=True)
    args = parser.parse_args()
    manifest = build_manifest(
        args.blocks, args.tokens, args.raw, args.duplicates, json.loads(args.data), os.path.dirname(args.out)
    )
    with atomic_path(args.out) as tmp:
        tmp.write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    run_cli(main)
