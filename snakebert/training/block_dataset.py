"""The packed blocks of the manifest as a map-style dataset (memory-mapped uint16 rows, train or validation, of
the data set's block size or of a phase's packing) and the training order: a permutation of the train blocks that
is a pure function of (shuffle seed, epoch). A dataset is given the manifest as read_manifest returned it, and reads
only its block files."""

from pathlib import Path

import numpy as np
from torch.utils.data import Sampler

from ..data.manifest_view import Manifest
from ..files.arrow_streams import stream_batches
from ..files.block_format import block_ids


def _shard_rows(path: str, manifest: Manifest, block_size: int) -> list[np.ndarray]:
    """The blocks of one shard as zero-copy (rows, block_size) views of the manifest's column and dtype, one per
    record batch."""
    return [
        block_ids(batch, path, manifest, block_size).to_numpy().reshape(-1, block_size)
        for batch in stream_batches(path, "block file")
    ]


def split_indices(manifest: Manifest, split: str, block_size: int | None = None) -> np.ndarray:
    """Global block numbers (shards in manifest order) of the `train` or `validation` split of the packing of
    `block_size` (default: the data set's)."""
    validation = manifest.held_out(block_size or manifest.block_size)
    return np.flatnonzero(validation if split == "validation" else ~validation)


class BlockDataset:
    """Blocks of one split of `manifest`, whose shard paths are relative to `folder` (the manifest file's). Item
    `i` (or `(epoch, i)`, as EpochSampler yields) is {"ids": a uint16 row of `block_size` token ids (no copy until
    batching), "block": its global block number, "epoch": epoch (0 for a plain index)}: what the collator needs to
    mask it as a pure function of the block and the epoch."""

    def __init__(
        self, manifest: Manifest, folder: Path, split: str, limit: int | None = None, block_size: int | None = None
    ) -> None:
        self.block_size = block_size or manifest.block_size
        self.views = [
            view
            for shard in manifest.packing_shards(self.block_size)
            for view in _shard_rows(str(folder / shard.path), manifest, self.block_size)
        ]
        self.view_starts = np.cumsum([0] + [len(view) for view in self.views])
        self.indices = split_indices(manifest, split, self.block_size)[:limit]

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, key: int | tuple[int, int]) -> dict:
        epoch, index = key if isinstance(key, tuple) else (0, key)
        block = int(self.indices[index])
        view = int(np.searchsorted(self.view_starts, block, side="right")) - 1
        return {"ids": self.views[view][block - self.view_starts[view]], "block": block, "epoch": epoch}


class EpochSampler(Sampler):
    """Yields (epoch, index) for every index of a dataset of `size` items, in an order drawn from (seed, epoch)
    alone; the trainer calls `set_epoch` at the start of each epoch."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        order = np.random.default_rng([self.seed, self.epoch]).permutation(self.size)
        return ((self.epoch, int(index)) for index in order)
