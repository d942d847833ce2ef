"""A corpus compressed with gzip, bzip2, xz or zstd makes the same tokens as the same files uncompressed, through
a real run (one source per codec, deduplication off so that each source keeps every document)."""

import bz2
import gzip
import lzma

import zstandard
from helpers import TEST_CONFIG, snakemake, write_jsonl
from tiny_corpus import DOCS

COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress, "zst": zstandard.ZstdCompressor().compress}


def test_each_codec_gives_the_tokens_of_the_plain_corpus(workdir):
    records = [{"text": f"{doc} ({copy})"} for copy in range(3) for doc in DOCS]
    plain = write_jsonl(workdir / "corpus/plain.jsonl", records)
    sources = [{"name": "plain", "type": "files", "paths": ["corpus/plain.jsonl"], "format": "jsonl"}]
    for extension, compress in COMPRESS.items():
        paths = [f"corpus/c.jsonl.{extension}"]
        (workdir / paths[0]).write_bytes(compress(b"\xef\xbb\xbf" + plain.read_bytes()))  # with a byte-order mark
        sources.append({"name": extension, "type": "files", "paths": paths, "format": "jsonl"})
    config = {**TEST_CONFIG, "sources": sources, "clean": {**TEST_CONFIG["clean"], "dedup": False}}
    targets = [f"results/tokens/{source['name']}/shard-00000.arrow" for source in sources]
    snakemake(workdir, *targets, config=config)
    tokens = {target: (workdir / target).read_bytes() for target in targets}
    assert len(tokens[targets[0]]) > 1000
    assert all(data == tokens[targets[0]] for data in tokens.values())
