"""Fail before spending: pretraining checks every block file against the manifest, every token id against the
vocabulary and both splits before its first step, and names the file or setting at fault."""

import json
import os
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
import torch
from helpers import PHASE_BLOCK_SIZE, TINY_TRAINING

import snakebert.training.pretrain as pretrain_module
from snakebert.config_defaults import schema_defaults
from snakebert.data.manifest import read_manifest
from snakebert.data.manifest_view import Manifest
from snakebert.errors import DataError
from snakebert.files.arrow_streams import read_table, stream_writer
from snakebert.files.block_format import COLUMN, block_schema
from snakebert.files.checksum import sha256
from snakebert.training.block_dataset import BlockDataset
from snakebert.training.checkpoints import FINGERPRINT_FILE, discard_unused
from snakebert.training.job import TrainingJob
from snakebert.training.model import BertForMaskedPositions
from snakebert.training.preflight import check_block_splits, check_counts, check_vocabulary, verify_blocks
from snakebert.training.pretrain import phase_trainer, prepare_run, pretrain


@pytest.fixture
def data(tiny_data, tmp_path):
    """A copy of the tiny data set's blocks (of both packings) and manifest, laid out as in results/; the manifest
    as JSON, which a test edits before it takes the view of it (Manifest.from_json)."""
    for folder in ("results/blocks", f"results/blocks-{PHASE_BLOCK_SIZE}", "results/dataset"):
        shutil.copytree(tiny_data.root / folder, tmp_path / folder)
    manifest_path = tmp_path / "results/dataset/manifest.json"
    return manifest_path, json.loads(manifest_path.read_text())


def rewrite_first_block_file(manifest_path, manifest, ids_change) -> str:
    """Rewrite the first shard's blocks with `ids_change` applied, and record the new SHA-256 in the manifest."""
    path = os.path.normpath(manifest_path.parent / manifest["shards"][0]["path"])
    ids = read_table(path).column(COLUMN).combine_chunks().flatten().to_numpy().copy()
    ids_change(ids)
    schema = block_schema(manifest["block_size"], ids.dtype)
    with stream_writer(path, schema) as writer:
        writer.write_table(pa.table([pa.FixedSizeListArray.from_arrays(pa.array(ids), manifest["block_size"])], schema))
    manifest["shards"][0]["sha256"] = sha256(path)
    return path


def test_intact_blocks_pass_and_every_byte_is_read(data):
    manifest_path, manifest = data[0], Manifest.from_json(data[1])
    read = verify_blocks(str(manifest_path), manifest, manifest.vocab_size)
    files = [manifest_path.parent / shard.path for shard in manifest.shards]
    assert read == sum(path.stat().st_size for path in files)
    shares = [verify_blocks(str(manifest_path), manifest, manifest.vocab_size, rank, 2) for rank in (0, 1)]
    assert sum(shares) == read  # two processes check disjoint halves


def test_a_block_file_changed_after_the_manifest_is_named(data):
    manifest_path, manifest = data
    path = Path(os.path.normpath(manifest_path.parent / manifest["shards"][1]["path"]))
    content = bytearray(path.read_bytes())
    content[-40] ^= 1
    path.write_bytes(bytes(content))
    with pytest.raises(DataError, match="SHA-256 differs") as refused:
        verify_blocks(str(manifest_path), Manifest.from_json(manifest), manifest["vocab_size"])
    assert str(path) in str(refused.value)


def test_a_token_id_outside_the_vocabulary_is_named_with_its_file(data):
    manifest_path, manifest = data
    path = rewrite_first_block_file(manifest_path, manifest, lambda ids: ids.__setitem__(5, 60000))
    with pytest.raises(DataError, match="token id 60000 is not below the vocabulary size") as refused:
        verify_blocks(str(manifest_path), Manifest.from_json(manifest), manifest["vocab_size"])
    assert path in str(refused.value)


def test_a_truncated_block_file_is_named_with_what_to_do(data):
    manifest_path, manifest = data
    path = Path(os.path.normpath(manifest_path.parent / manifest["shards"][0]["path"]))
    path.write_bytes(path.read_bytes()[:-100])
    manifest["shards"][0]["sha256"] = sha256(str(path))
    with pytest.raises(DataError, match="not a readable block file .* delete it and rerun") as refused:
        verify_blocks(str(manifest_path), Manifest.from_json(manifest), manifest["vocab_size"])
    assert str(path) in str(refused.value)
    named = re.escape(manifest["shards"][0]["path"])  # as the manifest names it
    with pytest.raises(DataError, match=f"{named}: not a readable block file .* delete it and rerun"):
        BlockDataset(Manifest.from_json(manifest), manifest_path.parent, "train")  # read as pre-flight reads it


def test_splits_and_vocabulary_are_checked(data):
    manifest_path, manifest = data[0], Manifest.from_json(data[1])
    with pytest.raises(DataError, match="no validation blocks"):
        check_block_splits(str(manifest_path), manifest, 100, 0, 8)
    with pytest.raises(DataError, match="fewer than one global batch of 64"):
        check_block_splits(str(manifest_path), manifest, 40, 4, 64)
    check_block_splits(str(manifest_path), manifest, 64, 1, 64)
    with pytest.raises(DataError, match=f"vocabulary of {manifest.vocab_size}, the tokenizer has 30522"):
        check_vocabulary(str(manifest_path), manifest, 30522)


def test_pretrain_names_a_truncated_block_file_before_it_reads_the_blocks(tiny_data, data, tmp_path):
    manifest_path, manifest = data
    path = Path(os.path.normpath(manifest_path.parent / manifest["shards"][0]["path"]))
    path.write_bytes(path.read_bytes()[:-100])
    manifest["shards"][0]["sha256"] = sha256(str(path))
    manifest_path.write_text(json.dumps(manifest))
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"]}
    with pytest.raises(DataError, match="not a readable block file") as refused:
        job = TrainingJob(
            str(manifest_path), str(tiny_data.tokenizer), TINY_TRAINING["model"], settings, backend="cpu",
            checkpoints=str(tmp_path / "checkpoints"),
        )  # fmt: skip
        pretrain(job, str(tmp_path / "model"))
    assert str(path) in str(refused.value) and not (tmp_path / "checkpoints").exists()


def test_a_run_reads_the_manifest_file_once(tiny_data, data, tmp_path, monkeypatch):
    """prepare_run reads manifest.json, and the file is gone the moment it has: pre-flight, the validation blocks
    and each phase's train blocks (of both packings) work from what it read."""
    manifest_path, _ = data

    def read_then_delete(path):
        manifest = read_manifest(path)
        os.remove(path)
        return manifest

    monkeypatch.setattr(pretrain_module, "read_manifest", read_then_delete)
    phases = [
        {"block_size": PHASE_BLOCK_SIZE, "steps": 4, "per_device_train_batch_size": 8},
        {"block_size": 16, "steps": 56},
    ]
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "phases": phases}
    job = TrainingJob(
        str(manifest_path), str(tiny_data.tokenizer), TINY_TRAINING["model"], settings, backend="cpu",
        checkpoints=str(tmp_path / "checkpoints"),
    )  # fmt: skip
    run = prepare_run(job)
    assert not manifest_path.exists() and len(run.validation) > 0
    for phase in run.phases:
        train = phase_trainer(run, phase).train_dataset
        assert train.block_size == phase.block_size and len(train) > 0 and train[0]["ids"].shape == (phase.block_size,)


def test_a_run_that_fails_at_its_first_step_leaves_no_checkpoint_folder(tiny_data, data, tmp_path, monkeypatch):
    def out_of_memory(*args, **kwargs):  # a stand-in for an accelerator that runs out of memory
        raise torch.OutOfMemoryError("out of memory at the first step")

    monkeypatch.setattr(BertForMaskedPositions, "forward", out_of_memory)
    manifest_path, _ = data
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"]}
    job = TrainingJob(
        str(manifest_path), str(tiny_data.tokenizer), TINY_TRAINING["model"], settings, backend="cpu",
        checkpoints=str(tmp_path / "checkpoints"),
    )  # fmt: skip
    with pytest.raises(torch.OutOfMemoryError):
        pretrain(job, str(tmp_path / "model"))
    assert not (tmp_path / "checkpoints").exists() and not (tmp_path / "model").exists()


def test_a_failed_run_keeps_the_checkpoints_of_an_earlier_one(tmp_path):
    folder = tmp_path / "checkpoints" / "0123456789abcdef"
    (folder / "checkpoint-5").mkdir(parents=True)
    (folder / FINGERPRINT_FILE).write_text("{}")
    discard_unused(folder)
    assert sorted(path.name for path in folder.iterdir()) == ["checkpoint-5", FINGERPRINT_FILE]


def test_a_manifest_that_lists_fewer_blocks_than_the_file_holds_is_refused_naming_the_file(data):
    manifest_path, manifest = data
    path = os.path.normpath(manifest_path.parent / manifest["shards"][0]["path"])
    manifest["shards"][0]["blocks"] -= 1
    with pytest.raises(DataError, match="the manifest does not describe this file") as refused:
        verify_blocks(str(manifest_path), Manifest.from_json(manifest), manifest["vocab_size"])
    assert f"{path}: {manifest['shards'][0]['blocks'] + 1} blocks" in str(refused.value)


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda m: m["shards"][0].__setitem__("blocks", m["shards"][0]["blocks"] - 1), "shard 0 ("),
        (lambda m: m["shards"][1].__setitem__("blocks", m["shards"][1]["blocks"] + 1), "shard 1 ("),
        (lambda m: m["totals"].__setitem__("blocks", m["totals"]["blocks"] + 5), "totals.blocks is"),
        (lambda m: m["split"].__setitem__("train_blocks", m["split"]["train_blocks"] - 1), "train and"),
        (lambda m: m["split"]["validation"][0].__setitem__("stop", 10**6), "split.validation"),
    ],
)
def test_a_manifest_whose_counts_disagree_is_refused_naming_what(data, edit, fragment):
    manifest_path, manifest = data
    check_counts(str(manifest_path), Manifest.from_json(manifest))
    edit(manifest)
    with pytest.raises(DataError, match="its counts disagree") as refused:
        check_counts(str(manifest_path), Manifest.from_json(manifest))
    assert fragment in str(refused.value)
    assert str(manifest_path) in str(refused.value)


def test_a_manifest_missing_a_count_or_with_a_count_not_a_number_is_refused_naming_the_manifest(data):
    manifest_path, manifest = data
    blocks = manifest["shards"][0]["blocks"]
    manifest["shards"][0]["blocks"] = str(blocks)
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(
        DataError, match=rf"not a manifest of this workflow .*its 'blocks' is '{blocks}', not an integer"
    ):
        read_manifest(str(manifest_path))
    del manifest["shards"][0]["tokens"]
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(DataError, match=r"not a manifest of this workflow \(KeyError\('tokens'\)\)") as refused:
        read_manifest(str(manifest_path))
    assert str(manifest_path) in str(refused.value)
