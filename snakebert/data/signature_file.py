"""A text shard's near-duplicate keys (results/dedup/signatures/{source}/{shard}.arrow), as minhash.py writes them
and near_dedup.py reads them: an Arrow IPC stream of each signed document's row in its shard and its key in every
band (`band_00`, `band_01`, ...: uint64). Kept apart from both, so that the workflow reads the path pattern without
importing their libraries (rensa, scipy)."""

import pyarrow as pa

SIGNATURE_FILE = "results/dedup/signatures/{source}/{shard}.arrow"  # minhash_shard's output, find_duplicates' input


def band_column(band: int) -> str:
    return f"band_{band:02d}"


def signature_schema(bands: int) -> pa.Schema:
    return pa.schema([("row", pa.int64()), *((band_column(band), pa.uint64()) for band in range(bands))])
