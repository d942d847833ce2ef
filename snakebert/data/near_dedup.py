"""Near-duplicate removal across all shards (`clean.near_dedup`): every document's band keys (minhash.py writes
them, a file per text shard) are grouped band by band; two documents that share a key in any band are
near-duplicates, their groups joined across bands are the clusters, and in each the first document in corpus order
is kept. Keys and positions, not texts, reach this job, so the result depends on the corpus order alone, not on the
number of shards or jobs. Memory: the rows, and one band's keys at a time, 8 bytes each per document, with the
signature files memory-mapped."""

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

from ..files.arrow_streams import read_table
from .signature_file import band_column

SAMPLES = 20  # near-duplicates shown for inspection, each beside the document it repeats


def _edges(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Within each group of equal keys (the documents in corpus order), an edge from its first document to each
    other one."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.flatnonzero(np.diff(ordered, prepend=~ordered[:1]) != 0) if len(keys) else np.zeros(0, np.int64)
    first = np.repeat(order[starts], np.diff(np.append(starts, len(keys))))
    joined = first != order
    return first[joined], order[joined]


def near_duplicates(signature_files: list[str], skip: list[np.ndarray], samples: int = SAMPLES) -> tuple[list, list]:
    """Per signature file (one per text shard, in corpus order), the rows that are near-duplicates of an earlier
    document, sorted; and the first `samples` of them in corpus order, each as ((shard index, row) removed, (shard
    index, row) of its cluster's first document, which stays). The rows in `skip` (exact duplicates, per shard) take
    no part."""
    tables = [read_table(path) for path in signature_files]  # memory-mapped: a band's column is read when used
    kept = [~np.isin(table.column("row").to_numpy(), skipped) for table, skipped in zip(tables, skip, strict=True)]
    rows = [table.column("row").to_numpy()[keep] for table, keep in zip(tables, kept, strict=True)]
    shard_of = np.repeat(np.arange(len(rows)), [len(found) for found in rows])
    ends, starts = [], []
    for band in range(len(tables[0].schema) - 1 if tables else 0):
        keys = [table.column(band_column(band)).to_numpy()[keep] for table, keep in zip(tables, kept, strict=True)]
        first, other = _edges(np.concatenate(keys))
        starts.append(first)
        ends.append(other)
    edges = (np.concatenate(starts or [np.zeros(0, np.int64)]), np.concatenate(ends or [np.zeros(0, np.int64)]))
    graph = coo_array((np.ones(len(edges[0]), dtype=np.int8), edges), shape=(len(shard_of),) * 2)
    _, labels = connected_components(graph, directed=False)
    _, firsts = np.unique(labels, return_index=True)  # the first document of each cluster, which stays
    removed = np.ones(len(shard_of), dtype=bool)
    removed[firsts] = False
    flat_rows = np.concatenate(rows or [np.zeros(0, np.int64)])
    shown = np.flatnonzero(removed)[:samples]
    sampled = [
        ((int(shard_of[node]), int(flat_rows[node])), (int(shard_of[kept]), int(flat_rows[kept])))
        for node, kept in zip(shown, firsts[labels[shown]], strict=True)
    ]
    per_shard = np.split(removed, np.cumsum([len(found) for found in rows])[:-1]) if rows else []
    return [found[gone] for found, gone in zip(rows, per_shard, strict=True)], sampled
