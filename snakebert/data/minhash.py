"""MinHash signatures for near-duplicate removal (near_dedup.py clusters them), one text shard at a time: each
document's word n-grams (lower-cased, split at anything but letters and digits) are hashed, the `rensa` library turns
them into `hashes` minimum hashes, and each of `bands` bands of `rows` of them becomes one 64-bit key. A document of
fewer than `ngram` words has no n-gram and no keys (exact deduplication still sees it). Memory is bounded by a record
batch."""

from hashlib import blake2b

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import rensa

from ..files.arrow_streams import stream_batches, stream_writer
from .signature_file import signature_schema

SEED = 1  # rensa's permutations: fixed, so signatures of every shard and run agree
NOT_A_WORD = r"[^\p{L}\p{N}]+"
MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # an odd 64-bit constant: each word's hash enters the n-gram's mixed


def _mixed(values: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise: a bijection that spreads every input bit over the output."""
    values = values.copy()
    with np.errstate(over="ignore"):
        values ^= values >> np.uint64(30)
        values *= np.uint64(0xBF58476D1CE4E5B9)
        values ^= values >> np.uint64(27)
        values *= np.uint64(0x94D049BB133111EB)
        values ^= values >> np.uint64(31)
    return values


def _word_hashes(words: pa.Array) -> np.ndarray:
    """A 64-bit BLAKE2b digest of each word, hashed once per distinct word of the batch."""
    encoded = pc.dictionary_encode(words)
    digests = [int.from_bytes(blake2b(word.encode(), digest_size=8).digest(), "little") for word in
               encoded.dictionary.to_pylist()]  # fmt: skip
    return np.array(digests, dtype=np.uint64)[encoded.indices.to_numpy(zero_copy_only=False)]


def ngram_hashes(texts: pa.Array, ngram: int) -> tuple[np.ndarray, np.ndarray]:
    """Every document's word n-grams as 64-bit hashes, flat, and where each document's start (len(texts) + 1
    offsets); a document of fewer than `ngram` words has none."""
    words = pc.utf8_split_whitespace(pc.replace_substring_regex(pc.utf8_lower(texts), NOT_A_WORD, " "))
    offsets = words.offsets.to_numpy()
    hashes = _word_hashes(words.flatten()) if len(words.flatten()) else np.zeros(0, dtype=np.uint64)
    windows = max(len(hashes) - ngram + 1, 0)
    mixed = np.zeros(windows, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for position in range(ngram):
            mixed = mixed * MULTIPLIER + hashes[position : position + windows]
    counts = np.maximum(np.diff(offsets) - ngram + 1, 0)
    starts = np.repeat(offsets[:-1], counts) + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    return _mixed(mixed[starts]), np.concatenate([[0], np.cumsum(counts)]).astype(np.uint64)


def band_keys(texts: pa.Array, settings: dict) -> tuple[np.ndarray, np.ndarray]:
    """The documents of `texts` that have an n-gram (their indices) and each one's key in every band (docs x bands)."""
    hashes, offsets = ngram_hashes(texts, settings["ngram"])
    has_ngrams = np.flatnonzero(np.diff(offsets) > 0)
    if not len(has_ngrams):
        return has_ngrams, np.zeros((0, settings["bands"]), dtype=np.uint64)
    matrix = rensa.RMinHash.digest_matrix_from_flat_token_hashes(
        hashes, offsets[np.append(has_ngrams, has_ngrams[-1] + 1)], settings["hashes"], SEED
    )
    rows = settings["rows"]
    signatures = np.array(matrix.to_rows(), dtype=np.uint64)[:, : settings["bands"] * rows]
    keys = np.zeros((len(has_ngrams), settings["bands"]), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for row in range(rows):
            keys = _mixed(keys * MULTIPLIER + signatures[:, row::rows])
    return has_ngrams, keys


def write_signatures(raw_shard: str, settings: dict, out: str) -> int:
    """Each document's band keys of one text shard (its row, a key per band), batch by batch; return how many
    documents have n-grams."""
    schema = signature_schema(settings["bands"])
    start = written = 0
    with stream_writer(out, schema) as writer:
        for batch in stream_batches(raw_shard):
            rows, keys = band_keys(batch.column("text"), settings)
            writer.write_batch(pa.record_batch([pa.array(rows + start), *keys.T], schema=schema))
            start += len(batch)
            written += len(rows)
    return written
