"""What pretraining checks before its first step, so that bad data fails in the first seconds of a long run:
the manifest's counts against each other, every block file against the manifest's SHA-256 and block count, every
token id below the vocabulary, and both splits large enough to train and evaluate. Each failure names the file,
the shard or the setting."""

import os
from pathlib import Path

import pyarrow as pa

from ..data.manifest_view import Manifest
from ..errors import DataError
from ..files import unreadable
from ..files.arrow_streams import stream_batches
from ..files.block_format import block_ids
from ..files.checksum import sha256
from ..files.json_views import as_json, not_this_workflows


def _scan(path: Path, manifest: Manifest, block_size: int) -> tuple[int, int]:
    """(the largest token id, the blocks) of a block file, record batch by record batch (memory-mapped, no copy)."""
    largest = rows = 0
    try:
        for batch in stream_batches(path, "block file"):
            ids = block_ids(batch, path, manifest, block_size).to_numpy()
            largest = max(largest, int(ids.max(initial=0)))
            rows += batch.num_rows
    except (pa.ArrowException, KeyError, AttributeError) as error:  # a stream, but not of blocks (column, type, nulls)
        raise unreadable(path, "block file", error) from error
    return largest, rows


def _count_problems(manifest: Manifest) -> list[str]:
    """Where the manifest's own counts disagree: each shard's tokens against its blocks and dropped tokens (in
    every packing), the totals against the shards, the splits against the totals, each validation range against
    its shard."""
    shards = manifest.shards
    problems = []
    packings = [(manifest.block_size, shards), *((packing.block_size, packing.shards) for packing in manifest.packings)]
    for size, packed_shards in packings:
        for index, (shard, packed) in enumerate(zip(shards, packed_shards, strict=True)):
            if packed.blocks * size + packed.dropped_tokens != shard.tokens:
                problems.append(
                    f"shard {index} ({packed.path}): {packed.blocks} blocks of {size} and "
                    f"{packed.dropped_tokens} dropped tokens are not its {shard.tokens} tokens"
                )
    blocks = sum(shard.blocks for shard in shards)
    split = manifest.split
    if manifest.totals.blocks != blocks:
        problems.append(f"totals.blocks is {manifest.totals.blocks}, the shards hold {blocks}")
    if split.train_blocks + split.validation_blocks != blocks:
        problems.append(
            f"split: {split.train_blocks} train and {split.validation_blocks} validation blocks are not the "
            f"shards' {blocks}"
        )
    ranges = split.validation
    if sum(part.stop - part.start for part in ranges) != split.validation_blocks:
        problems.append(f"split.validation's ranges do not hold split.validation_blocks ({split.validation_blocks})")
    for part in ranges:
        if not 0 <= part.start <= part.stop <= shards[part.shard].blocks:
            problems.append(f"split.validation range {as_json(part)} lies outside shard {part.shard}")
    return problems


def check_counts(manifest_path: str, manifest: Manifest) -> None:
    """Refuse a manifest whose counts disagree with each other (hand-edited, or of another data set), and as not
    this workflow's one whose counts are not numbers or whose range names no shard (read_manifest refused a missing
    key)."""
    try:
        problems = _count_problems(manifest)
    except (IndexError, TypeError, ValueError) as error:
        raise not_this_workflows(manifest_path, "manifest", error) from error
    if problems:
        raise DataError(
            f"{manifest_path}: its counts disagree ({'; '.join(problems)}); it was edited or belongs to other "
            "blocks: delete it and rerun to rebuild it"
        )


def verify_blocks(
    manifest_path: str, manifest: Manifest, vocab_size: int, rank: int = 0, world_size: int = 1, block_sizes=None
) -> int:
    """Check this rank's share of the block files (every `world_size`-th, from `rank`) of the packings of
    `block_sizes` (default: the data set's own); return the bytes read."""
    folder = Path(manifest_path).parent
    sizes = block_sizes or [manifest.block_size]
    files = [(shard, size) for size in sizes for shard in manifest.packing_shards(size)]
    checked = 0
    for shard, size in files[rank::world_size]:
        path = Path(os.path.normpath(folder / shard.path))
        if not path.is_file():
            raise DataError(f"{path}: block file listed in {manifest_path} is missing")
        if sha256(str(path)) != shard.sha256:
            raise DataError(
                f"{path}: its SHA-256 differs from the one in {manifest_path}: the file changed after the manifest "
                "was written; delete it and rerun to rebuild it"
            )
        largest, rows = _scan(path, manifest, size)
        if rows != shard.blocks:
            raise DataError(
                f"{path}: {rows} blocks, {manifest_path} lists {shard.blocks}: the manifest does not describe "
                "this file; delete the manifest and rerun to rebuild it"
            )
        if largest >= vocab_size:
            raise DataError(
                f"{path}: token id {largest} is not below the vocabulary size {vocab_size} of the tokenizer; "
                "the blocks were not made with this tokenizer"
            )
        checked += path.stat().st_size
    return checked


def check_block_splits(
    manifest_path: str, manifest: Manifest, train_blocks: int, validation_blocks: int, batch: int
) -> None:
    """Enough train blocks for one global batch, and at least one validation block."""
    if validation_blocks == 0:
        raise DataError(
            f"{manifest_path}: no validation blocks (data.validation_fraction is "
            f"{manifest.split.validation_fraction}); training evaluates on them"
        )
    if train_blocks < batch:
        raise DataError(
            f"{manifest_path}: {train_blocks} train blocks, fewer than one global batch of {batch} "
            "(pretrain.per_device_train_batch_size x processes): not one training step could run"
        )


def check_vocabulary(manifest_path: str, manifest: Manifest, vocab_size: int) -> None:
    if manifest.vocab_size != vocab_size:
        raise DataError(
            f"{manifest_path}: the blocks were tokenized with a vocabulary of {manifest.vocab_size}, "
            f"the tokenizer has {vocab_size}"
        )


def check_positions(block_sizes: list[int], positions: int, where: str) -> None:
    """Every phase's blocks within the model's positions (checked when the workflow is read, except for a Hub base,
    whose positions are known once the job reads its config: `where` names it)."""
    if max(block_sizes) > positions:
        raise DataError(
            f"{where}: blocks of {max(block_sizes)} tokens do not fit its {positions} positions; lower data.block_size "
            "or the phases' block sizes"
        )
