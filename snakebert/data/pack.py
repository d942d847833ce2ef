"""Pack one shard's token stream into fixed-size blocks: concatenate documents, cut, drop the last remainder."""

import numpy as np
import pyarrow as pa

from ..files.arrow_streams import stream_batches, stream_schema, stream_writer
from ..files.block_format import COLUMN, block_schema
from ..files.checksum import sha256
from ..files.json_files import write_json


def pack_shard(tokens: str, block_size: int, out: str, stats: str) -> dict:
    """Write `out` with the shard's tokens cut into `block_size` blocks (only the final remainder is dropped), and
    its counts and SHA-256 to `stats`. The blocks' ids are of the token shard's type (uint16 or uint32)."""
    dtype = stream_schema(tokens, "token shard").field(COLUMN).type.value_type.to_pandas_dtype()
    schema = block_schema(block_size, dtype)
    carry = np.zeros(0, dtype=dtype)
    total = blocks = 0
    with stream_writer(out, schema) as writer:
        for batch in stream_batches(tokens):
            flat = batch.column(COLUMN).flatten().to_numpy()
            total += len(flat)
            stream = np.concatenate([carry, flat])
            full = len(stream) // block_size * block_size
            if full:
                values = pa.array(stream[:full])
                writer.write_batch(pa.record_batch([pa.FixedSizeListArray.from_arrays(values, block_size)], schema))
                blocks += full // block_size
            carry = stream[full:]
    counts = {"tokens": total, "blocks": blocks, "dropped_tokens": len(carry), "sha256": sha256(out)}
    write_json(stats, counts)
    return counts
