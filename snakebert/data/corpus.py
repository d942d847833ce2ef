"""Read the deduplicated corpus back from the text shards, batch by batch, memory-mapped."""

from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from ..streams import stream_batches


def shard_texts(raw_shard: str, skip_rows: np.ndarray | None = None) -> Iterator[pa.Array]:
    """The `text` batches of one shard, without the rows in `skip_rows` (duplicates of earlier documents)."""
    start = 0
    for batch in stream_batches(raw_shard):
        texts = batch.column("text")
        if skip_rows is not None and len(skip_rows):
            rows = np.arange(start, start + len(texts))
            texts = texts.filter(pa.array(~np.isin(rows, skip_rows)))
        start += len(batch)
        yield texts


def sample_texts(batches: Iterator[pa.Array], fraction: float) -> Iterator[list[str]]:
    """An evenly spaced `fraction` of the documents, chosen by their position alone (deterministic)."""
    seen = 0
    for texts in batches:
        positions = np.arange(seen, seen + len(texts))
        chosen = np.floor((positions + 1) * fraction) > np.floor(positions * fraction)
        seen += len(texts)
        if chosen.any():
            yield texts.filter(pa.array(chosen)).to_pylist()
