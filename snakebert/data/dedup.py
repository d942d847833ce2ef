"""Exact deduplication across all shards, in corpus order: the first occurrence of a text is kept."""

from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import DataError
from ..files.arrow_streams import read_table, stream_writer

SCHEMA = pa.schema([("shard", pa.dictionary(pa.int32(), pa.string())), ("row", pa.int64())])


class SeenHashes:
    """A set of uint64 hashes kept as a few sorted arrays that merge as they grow (8 bytes per hash)."""

    def __init__(self) -> None:
        self.levels: list[np.ndarray] = []

    def _contains(self, values: np.ndarray) -> np.ndarray:
        found = np.zeros(len(values), dtype=bool)
        for level in self.levels:
            at = np.minimum(np.searchsorted(level, values), len(level) - 1)
            found |= level[at] == values
        return found

    def first_seen(self, hashes: np.ndarray) -> np.ndarray:
        """Mark the entries of `hashes` never seen before (the first of equal ones); remember them all."""
        unique, first = np.unique(hashes, return_index=True)
        new = ~self._contains(unique)
        keep = np.zeros(len(hashes), dtype=bool)
        keep[first[new]] = True
        self.levels.append(unique[new])
        while len(self.levels) > 1 and len(self.levels[-1]) >= len(self.levels[-2]):
            top = self.levels.pop()
            self.levels[-1] = np.union1d(self.levels[-1], top)
        return keep


def shard_key(raw_shard: str) -> str:
    """`{source}/shard-NNNNN`, the name a raw shard is known by in the duplicates table and the manifest."""
    path = Path(raw_shard)
    return f"{path.parent.name}/{path.stem}"


def read_hashes(raw_shard: str) -> np.ndarray:
    column = read_table(raw_shard).column("hash")
    return column.to_numpy() if column.num_chunks else np.zeros(0, dtype=np.uint64)


def find_duplicates(raw_shards: list[str], out: str, enabled: bool = True) -> int:
    """Write the (shard, row) of every document already seen earlier in `raw_shards`; return how many."""
    seen = SeenHashes()
    keys = [shard_key(raw_shard) for raw_shard in raw_shards]
    shard_of, rows = [], []
    docs_per_source: dict[str, int] = {}
    for index, raw_shard in enumerate(raw_shards):
        hashes = read_hashes(raw_shard)
        source = keys[index].split("/")[0]
        docs_per_source[source] = docs_per_source.get(source, 0) + len(hashes)
        if enabled:
            repeated = np.flatnonzero(~seen.first_seen(hashes))
            shard_of.append(np.full(len(repeated), index, dtype=np.int32))
            rows.append(repeated.astype(np.int64))
    for source, docs in docs_per_source.items():
        if docs == 0:
            raise DataError(f"source {source!r} has no documents left after cleaning (see results/raw/{source}/*.json)")
    shard_column = pa.DictionaryArray.from_arrays(
        pa.array(np.concatenate(shard_of or [np.zeros(0, np.int32)])), pa.array(keys, pa.string())
    )
    table = pa.table([shard_column, pa.array(np.concatenate(rows or [np.zeros(0, np.int64)]))], SCHEMA)
    with stream_writer(out, SCHEMA) as writer:
        writer.write_table(table)
    return len(table)


def duplicate_rows(duplicates: str) -> dict[str, np.ndarray]:
    """The duplicates table as {shard key: sorted row numbers to skip} (rows are stored grouped by shard)."""
    table = read_table(duplicates).combine_chunks()
    shards = table.column("shard").chunk(0) if table.num_rows else None
    if shards is None:
        return {}
    codes = shards.indices.to_numpy()
    rows = table.column("row").to_numpy()
    starts = np.flatnonzero(np.diff(codes, prepend=-1))
    ends = np.append(starts[1:], len(codes))
    names = shards.dictionary.to_pylist()
    return {names[codes[start]]: rows[start:end] for start, end in zip(starts, ends, strict=True)}
