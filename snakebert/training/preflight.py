"""What pretraining checks before its first step, so that bad data fails in the first seconds of a long run:
every block file against the manifest's SHA-256, every token id below the vocabulary, and both splits large
enough to train and evaluate. Each failure names the file or the setting."""

import os
from pathlib import Path

import pyarrow as pa

from ..checksum import sha256
from ..data.manifest import block_ids, packing_shards
from ..errors import DataError


def _largest_id(path: Path, manifest: dict, block_size: int) -> int:
    """The largest token id in a block file, record batch by record batch (memory-mapped, no copy)."""
    largest = 0
    try:
        with pa.memory_map(str(path)) as source:
            for batch in pa.ipc.open_stream(source):
                ids = block_ids(batch, path, manifest, block_size).to_numpy()
                largest = max(largest, int(ids.max(initial=0)))
    except (pa.ArrowException, OSError, KeyError, AttributeError) as error:
        raise DataError(f"{path}: not a readable block file ({error}); delete it and rerun to rebuild it") from error
    return largest


def verify_blocks(
    manifest_path: str, manifest: dict, vocab_size: int, rank: int = 0, world_size: int = 1, block_sizes=None
) -> int:
    """Check this rank's share of the block files (every `world_size`-th, from `rank`) of the packings of
    `block_sizes` (default: the data set's own); return the bytes read."""
    folder = Path(manifest_path).parent
    sizes = block_sizes or [manifest["block_size"]]
    files = [(shard, size) for size in sizes for shard in packing_shards(manifest, size)]
    checked = 0
    for shard, size in files[rank::world_size]:
        path = Path(os.path.normpath(folder / shard["path"]))
        if not path.is_file():
            raise DataError(f"{path}: block file listed in {manifest_path} is missing")
        if sha256(str(path)) != shard["sha256"]:
            raise DataError(
                f"{path}: its SHA-256 differs from the one in {manifest_path}: the file changed after the manifest "
                "was written; delete it and rerun to rebuild it"
            )
        largest = _largest_id(path, manifest, size)
        if largest >= vocab_size:
            raise DataError(
                f"{path}: token id {largest} is not below the vocabulary size {vocab_size} of the tokenizer; "
                "the blocks were not made with this tokenizer"
            )
        checked += path.stat().st_size
    return checked


def check_splits(manifest_path: str, manifest: dict, train_blocks: int, validation_blocks: int, batch: int) -> None:
    """Enough train blocks for one global batch, and at least one validation block."""
    if validation_blocks == 0:
        raise DataError(
            f"{manifest_path}: no validation blocks (data.validation_fraction is "
            f"{manifest['split']['validation_fraction']}); training evaluates on them"
        )
    if train_blocks < batch:
        raise DataError(
            f"{manifest_path}: {train_blocks} train blocks, fewer than one global batch of {batch} "
            "(pretrain.per_device_train_batch_size x processes): not one training step could run"
        )


def check_vocabulary(manifest_path: str, manifest: dict, vocab_size: int) -> None:
    if manifest["vocab_size"] != vocab_size:
        raise DataError(
            f"{manifest_path}: the blocks were tokenized with a vocabulary of {manifest['vocab_size']}, "
            f"the tokenizer has {vocab_size}"
        )
