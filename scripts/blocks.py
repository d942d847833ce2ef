"""The packed blocks of the manifest as a map-style dataset: memory-mapped uint16 rows, train or validation."""

import json
from pathlib import Path

import numpy as np
import pyarrow as pa


def read_manifest(path: str) -> dict:
    return json.loads(Path(path).read_text())


def _shard_rows(path: str, block_size: int) -> list[np.ndarray]:
    """The blocks of one shard as zero-copy (rows, block_size) uint16 views, one per record batch."""
    source = pa.memory_map(path)
    views = []
    for batch in pa.ipc.open_stream(source):
        values = batch.column("input_ids").flatten().to_numpy()
        views.append(values.reshape(-1, block_size))
    return views


def split_indices(manifest: dict, split: str) -> np.ndarray:
    """Global block numbers (shards in manifest order) of the `train` or `validation` split."""
    starts = np.cumsum([0] + [shard["blocks"] for shard in manifest["shards"]])
    held_out = np.zeros(starts[-1], dtype=bool)
    for run in manifest["split"]["validation"]:
        held_out[starts[run["shard"]] + run["start"] : starts[run["shard"]] + run["stop"]] = True
    return np.flatnonzero(held_out if split == "validation" else ~held_out)


class BlockDataset:
    """Blocks of one split; item i is a uint16 row of `block_size` token ids (no copy until batching)."""

    def __init__(self, manifest_path: str, split: str, limit: int | None = None) -> None:
        manifest = read_manifest(manifest_path)
        self.block_size = manifest["block_size"]
        self.views = [
            view
            for shard in manifest["shards"]
            for view in _shard_rows(str(Path(manifest_path).parent / shard["path"]), self.block_size)
        ]
        self.view_starts = np.cumsum([0] + [len(view) for view in self.views])
        self.indices = split_indices(manifest, split)[:limit]

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, index: int) -> np.ndarray:
        block = self.indices[index]
        view = int(np.searchsorted(self.view_starts, block, side="right")) - 1
        return self.views[view][block - self.view_starts[view]]
