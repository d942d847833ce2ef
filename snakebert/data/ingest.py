"""Ingest one shard of a source: read, clean, and write the `text` (and `hash`) columns as Arrow IPC."""

from collections import Counter

import pyarrow as pa

from ..files.arrow_streams import stream_writer
from ..files.json_files import write_json
from .clean import check_patterns, clean_batch, text_hashes
from .sources import read_documents

SCHEMA = pa.schema([("text", pa.string()), ("hash", pa.uint64())])


def ingest_shard(source: dict, clean: dict, files: list[str], shard: int, out: str, stats: str) -> Counter:
    """Stream one shard's documents through the cleaner into `out`; write the counts to `stats`."""
    check_patterns(clean["strip_patterns"])
    counts = Counter(files=len(files))
    with stream_writer(out, SCHEMA) as writer:
        for texts in read_documents(source, files, shard, clean["max_doc_chars"]):
            texts = clean_batch(texts, clean, counts)
            if len(texts):
                writer.write_batch(pa.record_batch([texts, pa.array(text_hashes(texts))], schema=SCHEMA))
    write_json(stats, {"source": source["name"], "shard": shard, **counts})
    return counts
