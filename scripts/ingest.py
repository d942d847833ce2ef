"""Ingest one shard of a source: read, clean, and write the `text` (and `hash`) columns as Arrow IPC."""

import argparse
import json
from collections import Counter

import pyarrow as pa

from atomic import atomic_path
from clean import check_patterns, clean_batch, text_hashes
from errors import run_cli
from sources import read_documents

SCHEMA = pa.schema([("text", pa.string()), ("hash", pa.uint64())])


def ingest_shard(source: dict, clean: dict, files: list[str], shard: int, out: str, stats: str) -> Counter:
    """Stream one shard's documents through the cleaner into `out`; write the counts to `stats`."""
    check_patterns(clean["strip_patterns"])
    counts = Counter(files=len(files))
    with atomic_path(out) as tmp, pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_stream(sink, SCHEMA) as writer:
        for texts in read_documents(source, files, shard):
            texts = clean_batch(texts, clean, counts)
            if len(texts):
                writer.write_batch(pa.record_batch([texts, pa.array(text_hashes(texts))], schema=SCHEMA))
    with atomic_path(stats) as tmp:
        tmp.write_text(json.dumps({"source": source["name"], "shard": shard, **counts}, indent=1) + "\n")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", required=True, help="the source's config entry, as JSON")
    parser.add_argument("--clean", required=True, help="the `clean` config, as JSON")
    parser.add_argument("--shard", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    ingest_shard(json.loads(args.source), json.loads(args.clean), args.files, args.shard, args.out, args.stats)


if __name__ == "__main__":
    run_cli(main)
