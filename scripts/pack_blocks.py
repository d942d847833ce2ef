"""Pack one shard's token stream into fixed-size blocks: concatenate documents, cut, drop the last remainder."""

import argparse
import json

import numpy as np
import pyarrow as pa

from atomic import atomic_path
from errors import run_cli


def block_schema(block_size: int) -> pa.Schema:
    return pa.schema([("input_ids", pa.list_(pa.uint16(), block_size))])


def pack_shard(tokens: str, block_size: int, out: str) -> dict:
    """Write `out` with the shard's tokens cut into `block_size` blocks; only the final remainder is dropped."""
    schema = block_schema(block_size)
    carry = np.zeros(0, dtype=np.uint16)
    total = blocks = 0
    with (
        pa.memory_map(tokens) as source,
        atomic_path(out) as tmp,
        pa.OSFile(str(tmp), "wb") as sink,
        pa.ipc.new_stream(sink, schema) as writer,
    ):
        for batch in pa.ipc.open_stream(source):
            flat = batch.column("input_ids").flatten().to_numpy()
            total += len(flat)
            stream = np.concatenate([carry, flat])
            full = len(stream) // block_size * block_size
            if full:
                values = pa.array(stream[:full])
                writer.write_batch(pa.record_batch([pa.FixedSizeListArray.from_arrays(values, block_size)], schema))
                blocks += full // block_size
            carry = stream[full:]
    return {"tokens": total, "blocks": blocks, "dropped_tokens": len(carry)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--block-size", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("tokens")
    args = parser.parse_args()
    print(json.dumps(pack_shard(args.tokens, args.block_size, args.out)))


if __name__ == "__main__":
    run_cli(main)
