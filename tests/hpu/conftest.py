"""Setup of the HPU contract tests: the Habana runtime's stand-ins on the path, and a tiny data set built by the
pipeline's own functions (ingest, dedup, tokenizer, tokenize, pack, manifest)."""

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
STANDINS = HERE / "standins"


def _prepend_to(variable: str, path: Path) -> None:
    entries = [entry for entry in os.environ.get(variable, "").split(os.pathsep) if entry]
    if str(path) not in entries:
        os.environ[variable] = os.pathsep.join([str(path), *entries])


# `import optimum.habana` runs `pip list | grep habana-torch-plugin` in a shell: that must be this environment's pip,
# and it must find the stand-ins' pip metadata from any working directory (the tests change it).
_prepend_to("PYTHONPATH", STANDINS)
_prepend_to("PATH", Path(sys.executable).parent)
for _path in (STANDINS, REPO / "scripts", REPO / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from config_defaults import schema_defaults  # noqa: E402

SOURCE = {"name": "texts", "type": "files", "paths": ["corpus/*.txt"], "format": "text", "text_column": "text"}
CLEAN = {**schema_defaults("clean"), "min_chars": 10}
TOKENIZER = {**schema_defaults("tokenizer"), "vocab_size": 200, "min_frequency": 1, "sample_chars": 1_000_000}
DATA = {**schema_defaults("data"), "block_size": 16, "validation_fraction": 0.1}


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory) -> SimpleNamespace:
    """Two shards of a few short documents through the data half of the pipeline, laid out as the workflow's
    results/: blocks of 16 tokens, vocabulary 200."""
    from tiny_corpus import write_text_corpus

    from build_manifest import build_manifest
    from dedup import find_duplicates
    from ingest import ingest_shard
    from pack_blocks import pack_shard
    from tokenize_shard import tokenize_shard
    from train_tokenizer import train_tokenizer

    root = tmp_path_factory.mktemp("data")
    files = [str(path) for path in write_text_corpus(root / "corpus")]
    shards = [files[:3], files[3:]]
    raw, tokens, blocks = (
        [str(root / stage / SOURCE["name"] / f"shard-{index:05d}.arrow") for index in range(len(shards))]
        for stage in ("raw", "tokens", "blocks")
    )
    for path in raw + tokens + blocks:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    for index, shard_files in enumerate(shards):
        ingest_shard(SOURCE, CLEAN, shard_files, index, raw[index], str(Path(raw[index]).with_suffix(".json")))
    duplicates = str(root / "duplicates.arrow")
    find_duplicates(raw, duplicates, enabled=CLEAN["dedup"])
    tokenizer = str(root / "tokenizer")
    train_tokenizer(raw, duplicates, TOKENIZER, tokenizer)
    for raw_shard, tokens_shard, blocks_shard in zip(raw, tokens, blocks, strict=True):
        tokenize_shard(raw_shard, tokenizer, duplicates, tokens_shard)
        pack_shard(tokens_shard, DATA["block_size"], blocks_shard)
    manifest_path = root / "dataset" / "manifest.json"
    manifest_path.parent.mkdir()
    manifest = build_manifest(blocks, tokens, raw, duplicates, DATA, str(manifest_path.parent))
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    return SimpleNamespace(manifest=manifest_path, tokenizer=Path(tokenizer))
