"""Deduplication across all shards, in corpus order: the first occurrence of a text is kept (exact), and with
`clean.near_dedup` the first document of each cluster of near-duplicates (near_dedup.py). The removal list holds
each removed document's shard, row and kind (exact, near), grouped by shard in corpus order. The samples file shows
the first `SAMPLES` of each kind, each beside the document it repeats."""

from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from ..files.arrow_streams import read_table, stream_writer
from ..files.json_files import read_json, write_json
from .corpus import texts_at
from .near_dedup import SAMPLES, near_duplicates

EXACT, NEAR = "exact", "near"
SAMPLE_CHARS = 1000  # each sampled document's text is cut here
KINDS = (EXACT, NEAR)
SCHEMA = pa.schema(
    [
        ("shard", pa.dictionary(pa.int32(), pa.string())),
        ("row", pa.int64()),
        ("kind", pa.dictionary(pa.int8(), pa.string())),
    ]
)


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
        if new.any():  # an empty level would be searched in vain (a shard that cleaning or the filters emptied)
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


def _exact_duplicates(raw_shards: list[str], enabled: bool) -> list[np.ndarray]:
    """Per shard, the rows whose text an earlier document already had; a source left without documents is refused."""
    seen = SeenHashes()
    found = []
    docs_per_source: dict[str, int] = {}
    for raw_shard in raw_shards:
        hashes = read_hashes(raw_shard)
        source = shard_key(raw_shard).split("/")[0]
        docs_per_source[source] = docs_per_source.get(source, 0) + len(hashes)
        found.append(np.flatnonzero(~seen.first_seen(hashes)) if enabled else np.zeros(0, np.int64))
    for source, docs in docs_per_source.items():
        if docs == 0:
            shards = [raw_shard for raw_shard in raw_shards if shard_key(raw_shard).split("/")[0] == source]
            raise DataError(f"source {source!r} has no documents left after cleaning and filtering: {_removed(shards)}")
    return found


def _removed(text_shards: list[str]) -> str:
    """What removed a source's documents, summed from its text shards' stats (beside them: ingest's, or with a filter
    on, filter_shard's, which hold ingest's counts and each rule's), and where to look."""
    stats = [read_json(str(Path(shard).with_suffix(".json")), "stats file") for shard in text_shards]
    counts = {key: sum(found[key] for found in stats) for key in ("docs_read", "docs_null_or_empty", "docs_too_short")}
    rules = Counter()
    for found in stats:
        rules.update({rule: each["docs"] for rule, each in found.get("filtered", {}).items()})
    removed = [
        f"{counts['docs_null_or_empty']} null or empty",
        f"{counts['docs_too_short']} too short (clean.min_chars)",
    ]
    removed += [f"{docs} by {rule}" for rule, docs in rules.items()]
    return f"{counts['docs_read']} read, {', '.join(removed)} (see {Path(text_shards[0]).parent}/*.json)"


def _exact_pairs(raw_shards: list[str], exact: list[np.ndarray]) -> list[tuple]:
    """The first `SAMPLES` exact duplicates in corpus order, each as ((shard index, row) removed, (shard index, row)
    of the first document with its text, the one kept); the shards are read up to the last sampled one only."""
    removed = [(shard, int(row)) for shard, rows in enumerate(exact) for row in rows[:SAMPLES]][:SAMPLES]
    if not removed:
        return []
    hashes = [read_hashes(raw_shard) for raw_shard in raw_shards[: removed[-1][0] + 1]]
    wanted = {int(hashes[shard][row]) for shard, row in removed}
    first: dict[int, tuple[int, int]] = {}
    for shard, found in enumerate(hashes):
        for row in np.flatnonzero(np.isin(found, np.fromiter(wanted - first.keys(), np.uint64))):
            first.setdefault(int(found[row]), (shard, int(row)))
    return [((shard, row), first[int(hashes[shard][row])]) for shard, row in removed]


def _samples(raw_shards: list[str], pairs: list[tuple]) -> list[dict]:
    """Each sampled duplicate beside the document it repeats: shard, row and the start of its text."""
    wanted: dict[int, list[int]] = {}
    for pair in pairs:
        for shard, row in pair:
            wanted.setdefault(shard, []).append(row)
    texts = {shard: texts_at(raw_shards[shard], rows, SAMPLE_CHARS) for shard, rows in wanted.items()}
    shown = [{"shard": shard_key(raw_shards[shard]), "row": row, "text": texts[shard][row]} for pair in pairs
             for shard, row in pair]  # fmt: skip
    return [{"removed": removed, "repeats": kept} for removed, kept in zip(shown[::2], shown[1::2], strict=True)]


def find_duplicates(
    raw_shards: list[str],
    out: str,
    enabled: bool = True,
    signatures: list[str] | None = None,
    samples: str | None = None,
) -> dict[str, int]:
    """Write the (shard, row, kind) of every document already seen earlier in `raw_shards` (exact duplicates, with
    `enabled`) or near-duplicating an earlier one (from their `signatures`, one file per shard, when given); return
    how many of each kind. `samples`: where the first few of each kind go, each beside the document it repeats
    ({"exact": [...], "near": [...]}, near's empty without signatures)."""
    exact = _exact_duplicates(raw_shards, enabled)
    near, pairs = near_duplicates(signatures, exact) if signatures else ([np.zeros(0, np.int64)] * len(raw_shards), [])
    shard_of, rows, kinds = [], [], []
    for index, (repeated, similar) in enumerate(zip(exact, near, strict=True)):
        found = np.concatenate([repeated, similar]).astype(np.int64)
        order = np.argsort(found, kind="stable")
        shard_of.append(np.full(len(found), index, dtype=np.int32))
        rows.append(found[order])
        kinds.append(np.repeat(np.arange(len(KINDS), dtype=np.int8), [len(repeated), len(similar)])[order])
    columns = [
        pa.DictionaryArray.from_arrays(pa.array(np.concatenate(shard_of)), pa.array(map(shard_key, raw_shards))),
        pa.array(np.concatenate(rows)),
        pa.DictionaryArray.from_arrays(pa.array(np.concatenate(kinds)), pa.array(KINDS)),
    ]
    if samples:
        write_json(
            samples, {EXACT: _samples(raw_shards, _exact_pairs(raw_shards, exact)), NEAR: _samples(raw_shards, pairs)}
        )
    with stream_writer(out, SCHEMA) as writer:
        writer.write_table(pa.table(columns, SCHEMA))
    return {EXACT: sum(map(len, exact)), NEAR: sum(map(len, near))}


def duplicate_rows(duplicates: str | pa.Table) -> dict[str, np.ndarray]:
    """The duplicates table (its path, or read_table's table) as {shard key: sorted row numbers to skip} (rows are
    stored grouped by shard)."""
    table = (read_table(duplicates) if isinstance(duplicates, str) else duplicates).combine_chunks()
    shards = table.column("shard").chunk(0) if table.num_rows else None
    if shards is None:
        return {}
    codes = shards.indices.to_numpy()
    rows = table.column("row").to_numpy()
    starts = np.flatnonzero(np.diff(codes, prepend=-1))
    ends = np.append(starts[1:], len(codes))
    names = shards.dictionary.to_pylist()
    return {names[codes[start]]: rows[start:end] for start, end in zip(starts, ends, strict=True)}


def removed_counts(table: pa.Table, key: str) -> dict[str, int]:
    """How many documents of the shard `key` the duplicates `table` (read_table's) removes, by kind (exact, near)."""
    kinds = table.filter(pc.equal(table.column("shard").cast(pa.string()), key)).column("kind").cast(pa.string())
    found = pc.value_counts(kinds).to_pylist() if len(kinds) else []
    return {kind: next((each["counts"] for each in found if each["values"] == kind), 0) for kind in KINDS}
