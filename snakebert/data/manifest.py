"""The manifest (results/dataset/manifest.json): the data set's declared contract, and the one file training reads.
This module alone writes and reads it.

It holds the block format (block_size, column, dtype, vocab_size, the special token ids), how the blocks were
packed, each shard's counts and SHA-256, the packings of the same tokens at the other block sizes that training's
phases read (each shard's blocks and SHA-256) (aggregated from the stats the ingest, tokenize and pack jobs wrote beside
their outputs, nothing recomputed), the validation split, the shuffle seed, and the provenance: the versions of the
libraries that made the data, the project's commit and a digest of the config sections that shaped it. Its readers
get it as one typed view (manifest_view.Manifest), which read_manifest returns."""

import hashlib
import json
import os
import subprocess
from collections import Counter
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

from ..errors import DataError
from ..files.block_format import COLUMN, ids_dtype
from ..files.json_files import read_fields, read_json, write_json
from ..files.json_views import as_json, not_this_workflows
from .manifest_view import Manifest, ValidationRange, held_out_mask
from .special_tokens import SPECIAL_ROLES

FORMAT_VERSION = 4
PACKING = {  # how pack_shard made the blocks
    "documents": "whole",  # every document as the tokenizer encodes it, [CLS] ... [SEP], never truncated
    "order": "corpus",  # concatenated in corpus order within each shard; blocks never span two shards
    "remainder": "dropped",  # each shard's last partial block is dropped (its `dropped_tokens`)
}
LIBRARIES = ("tokenizers", "transformers", "datasets", "pyarrow")
CLEANING_COUNTS = ("docs_read", "docs_null_or_empty", "docs_too_short", "chars_read", "chars")
COUNTS = ("docs", "tokens", "blocks", "dropped_tokens", "duplicates", "near_duplicates", *CLEANING_COUNTS)
RAW_STATS = {"source": str, **dict.fromkeys(CLEANING_COUNTS, int)}  # what each job's stats file holds
MOSTLY_UNKNOWN = 2  # a corpus of which more than 1 token in 2 is [UNK] is refused
TOKEN_STATS = dict.fromkeys(("docs", "tokens", "unknown_tokens", "duplicates", "near_duplicates", "vocab_size"), int)
BLOCK_STATS = {"tokens": int, "blocks": int, "dropped_tokens": int, "sha256": str}
PROJECT = Path(__file__).resolve().parents[2]
DATA_SECTIONS = ("sources", "clean", "tokenizer", "data")  # the config sections that shape the data set


def validation_ranges(blocks: list[int], fraction: float, seed: int) -> list[dict]:
    """Per shard, one contiguous run of round(blocks * fraction) blocks at a seeded offset (few shared documents).
    Where that rounds to none in every shard, one block of the largest shard, if the data set has two or more: a
    small corpus still gets a split whenever one is possible."""
    sizes = [int(round(count * fraction)) for count in blocks]
    if not any(sizes) and sum(blocks) >= 2:
        sizes[blocks.index(max(blocks))] = 1
    ranges = []
    for index, (count, size) in enumerate(zip(blocks, sizes, strict=True)):
        if size:
            start = int(np.random.default_rng([seed, index]).integers(0, count - size + 1))
            ranges.append({"shard": index, "start": start, "stop": start + size})
    return ranges


def packing_entry(block_size: int, files: list[tuple[str, str]], tokens: list[int], folder: str) -> dict:
    """The manifest's line of the packing of `block_size`: per shard (block file, its stats), whose token counts
    must be the data set's `tokens`."""
    shards = []
    for (blocks, stats), expected in zip(files, tokens, strict=True):
        packed = read_fields(stats, BLOCK_STATS)
        if packed["tokens"] != expected:
            raise DataError(
                f"{stats}: packed {packed['tokens']} tokens, the data set's shard has {expected}: the two are from "
                "different runs; delete it and rerun to rebuild it"
            )
        shard = {key: packed[key] for key in ("blocks", "dropped_tokens", "sha256")}
        shards.append({"path": os.path.relpath(blocks, folder), **shard})
    return {"block_size": block_size, "shards": shards, "blocks": sum(shard["blocks"] for shard in shards)}


def special_ids(tokenizer_dir: str) -> dict[str, int]:
    """{role: token id} of the tokenizer's special tokens, from the two files save_pretrained writes."""
    folder = Path(tokenizer_dir)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    vocabulary = json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"]
    return {role: vocabulary[config[role]] for role in SPECIAL_ROLES}


def installed_version(name: str) -> str | None:
    """The version of an installed distribution; None where it is not installed (datasets serves Hub sources only)."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def project_commit() -> dict | None:
    """The project's git commit, and whether its tracked files differ from it; None outside a git checkout."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(PROJECT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        modified = subprocess.run(["git", "-C", str(PROJECT), "diff", "--quiet", "HEAD"], capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return {"id": commit, "modified": modified.returncode != 0}


def shard_entry(raw: str, raw_stats: str, token_stats: str, blocks: str, block_stats: str, folder: str) -> dict:
    """One shard's line of the manifest, from the stats its three jobs wrote (paths relative to `folder`)."""
    cleaning = read_fields(raw_stats, RAW_STATS)
    tokens, packed = read_fields(token_stats, TOKEN_STATS), read_fields(block_stats, BLOCK_STATS)
    if tokens["tokens"] != packed["tokens"]:
        raise DataError(
            f"{block_stats}: packed {packed['tokens']} tokens, but {token_stats} counts {tokens['tokens']}: "
            "the two are from different runs; delete them and rerun to rebuild them"
        )
    return {
        "path": os.path.relpath(blocks, folder),
        "text_shard": os.path.relpath(raw, folder),
        "source": cleaning["source"],
        "docs": tokens["docs"],
        "tokens": tokens["tokens"],
        "blocks": packed["blocks"],
        "dropped_tokens": packed["dropped_tokens"],
        "sha256": packed["sha256"],
        "duplicates": tokens["duplicates"],
        "near_duplicates": tokens["near_duplicates"],
        **{key: cleaning[key] for key in CLEANING_COUNTS},
        "filtered": cleaning.get("filtered", {}),  # filter_shard's counts, by rule; none without a filter
        "languages_removed": cleaning.get("languages", {}),
        "vocab_size": tokens["vocab_size"],
        "unknown_tokens": tokens["unknown_tokens"],
    }


def summed(filtered: list[dict[str, dict[str, int]]]) -> dict[str, dict[str, int]]:
    """The shards' counts of each filter rule ({rule: {"docs": n, "chars": n}}) added up, the rules in their order; a
    shard no filter read (its source says `filter: false`) has none."""
    rules = list(dict.fromkeys(rule for counts in filtered for rule in counts))
    return {rule: {key: sum(counts[rule][key] for counts in filtered if rule in counts) for key in ("docs", "chars")}
            for rule in rules}  # fmt: skip


def check_readable(unknown: int, entries: list[dict], tokenizer_dir: str) -> None:
    """Refuse a corpus of which the tokenizer reads less than half, its other tokens [UNK] (a tokenizer of another
    language or script, or one without its vocabulary): no masked LM learns from it."""
    tokens = sum(entry["tokens"] for entry in entries)
    if unknown * MOSTLY_UNKNOWN > tokens:
        raise DataError(
            f"{tokenizer_dir}: {unknown:,} of the corpus's {tokens:,} tokens ({unknown / tokens:.0%}) are unknown to "
            "the tokenizer ([UNK]): it reads less than half of the text; train a tokenizer on the corpus, or continue "
            "from a model whose tokenizer reads its language"
        )


def build_manifest(
    shards: list[tuple[str, ...]],
    tokenizer_dir: str,
    data: dict,
    config_digest: str,
    out: str,
    packings: dict[int, list[tuple[str, str]]] | None = None,
) -> dict:
    """The manifest to be written to `out`. `shards`: per shard, in corpus order, (text shard, its stats, token
    stats, block file, block stats); `packings`: per other block size, per shard, (block file, block stats). Shard
    paths are relative to the manifest's folder, so results/ can move."""
    entries = [shard_entry(*shard, os.path.dirname(out)) for shard in shards]
    vocab_sizes = {entry.pop("vocab_size") for entry in entries}
    check_readable(sum(entry.pop("unknown_tokens") for entry in entries), entries, tokenizer_dir)
    totals = {key: sum(entry[key] for entry in entries) for key in COUNTS}
    totals["kept_token_fraction"] = 1 - totals["dropped_tokens"] / max(totals["tokens"], 1)
    totals["filtered"] = summed([entry["filtered"] for entry in entries])
    totals["languages_removed"] = dict(sum((Counter(entry["languages_removed"]) for entry in entries), Counter()))
    validation = validation_ranges([entry["blocks"] for entry in entries], data["validation_fraction"], data["seed"])
    validation_blocks = sum(run["stop"] - run["start"] for run in validation)
    largest = max(entry["blocks"] for entry in entries)
    if largest == 0:
        raise DataError(f"no shard holds a whole block of data.block_size ({data['block_size']}) tokens")
    if validation_blocks == 0:
        raise DataError(
            f"the data set has {largest} block of data.block_size ({data['block_size']}) tokens: training needs one "
            "and evaluation another; add text or lower data.block_size"
        )
    tokens = [entry["tokens"] for entry in entries]
    vocab_size = vocab_sizes.pop()
    manifest = {
        "block_size": data["block_size"],
        "vocab_size": vocab_size,
        "dtype": ids_dtype(vocab_size).name,
        "column": COLUMN,
        "shards": entries,
        "totals": totals,
        "split": {
            "validation_fraction": data["validation_fraction"],
            "validation": validation,
            "validation_blocks": validation_blocks,
            "train_blocks": totals["blocks"] - validation_blocks,
        },
        "shuffle_seed": data["seed"],
        "format_version": FORMAT_VERSION,
        "packing": PACKING,
        "special_ids": special_ids(tokenizer_dir),
        "provenance": {
            "libraries": {name: installed_version(name) for name in LIBRARIES},
            "commit": project_commit(),
            "config_digest": config_digest,
        },
    }
    manifest["packings"] = []
    runs = [ValidationRange(**run) for run in validation]
    for size, files in sorted((packings or {}).items()):
        packing = packing_entry(size, files, tokens, os.path.dirname(out))
        counts = [shard["blocks"] for shard in packing["shards"]]
        packing["train_blocks"] = int((~held_out_mask(counts, runs, data["block_size"], size)).sum())
        manifest["packings"].append(packing)
    return manifest


def write_manifest(manifest: dict, out: str) -> None:
    write_json(out, manifest)


def read_manifest(path: str) -> Manifest:
    """The manifest at `path`, refused with what to do when its format is not this code's or a part of it is
    missing or not of its kind."""
    manifest = read_json(path, "manifest")
    found = manifest.get("format_version", 1) if isinstance(manifest, dict) else "unknown"
    if found != FORMAT_VERSION:
        raise DataError(
            f"{path}: manifest format {found}, this code reads format {FORMAT_VERSION}; "
            "delete it and rerun to rebuild it"
        )
    try:
        return Manifest.from_json(manifest)
    except (KeyError, TypeError, ValueError) as error:
        raise not_this_workflows(path, "manifest", error) from error


def json_digest(value) -> str:
    """The SHA-256 of `value` as JSON with sorted keys."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def data_digest(manifest: Manifest) -> str:
    """A digest of everything in the manifest that describes the data, not its provenance: what training is
    fingerprinted with (a rebuild by another commit or library version with the same blocks keeps checkpoints)."""
    return json_digest({key: value for key, value in as_json(manifest).items() if key != "provenance"})


def data_config_digest(config: dict) -> str:
    """A digest of the config sections that shape the data set (DATA_SECTIONS): the manifest's `config_digest`."""
    return json_digest({section: config[section] for section in DATA_SECTIONS})
