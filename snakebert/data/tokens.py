"""Tokenize every document of one text shard whole; store the ids as a flat stream with offsets
(uint16, or uint32 for a vocabulary above 65,535 tokens: files/block_format).

A document longer than PIECE_CHARS is encoded in pieces cut at whitespace, between the special tokens the
tokenizer puts around a text, so that memory is bounded by the piece, not by the document. The ids are those of
the whole document because the pre-tokenizer splits words at whitespace; each cut is checked (the text around it
encoded whole and in two), and a document with a cut the tokenizer does not split at is encoded whole."""

from pathlib import Path

import numpy as np
import pyarrow as pa
from tokenizers import Tokenizer

from ..files.arrow_streams import read_table, stream_writer
from ..files.block_format import ids_dtype, token_schema
from ..files.json_files import write_json
from .corpus import shard_texts, text_pieces
from .dedup import EXACT, NEAR, duplicate_rows, removed_counts, shard_key

PIECE_CHARS = 100_000
CUT_CONTEXT = 64  # characters each side of a cut encoded to check it
PIECES_PER_BATCH = 16


def load_tokenizer(tokenizer_dir: str) -> Tokenizer:
    return Tokenizer.from_file(str(Path(tokenizer_dir) / "tokenizer.json"))


def special_ends(tokenizer: Tokenizer) -> tuple[list[int], list[int]] | None:
    """The ids the tokenizer puts before and after a text (BERT: [CLS] and [SEP]), or None if a probe text gives
    none of its own ids to tell them apart."""
    encoding = tokenizer.encode("a")
    own = [index for index, sequence in enumerate(encoding.sequence_ids) if sequence == 0]
    if not own:
        return None
    return encoding.ids[: own[0]], encoding.ids[own[-1] + 1 :]


def splits_at(tokenizer: Tokenizer, text: str, cut: int) -> bool:
    """Whether the tokenizer encodes the text around `cut` as it encodes the two sides of it apart."""
    left, right = text[max(cut - CUT_CONTEXT, 0) : cut], text[cut : cut + CUT_CONTEXT]
    whole, before, after = tokenizer.encode_batch_fast([left + right, left, right], add_special_tokens=False)
    return whole.ids == before.ids + after.ids


def encode_long(tokenizer: Tokenizer, text: str) -> np.ndarray:
    """The ids of one long document, as the tokenizer encodes it whole, from pieces of it (see the module)."""
    dtype = ids_dtype(tokenizer.get_vocab_size())
    pieces = text_pieces(text, PIECE_CHARS, whole_words=True)
    ends = special_ends(tokenizer)
    cuts = np.cumsum([len(piece) for piece in pieces[:-1]])
    if ends is None or not all(splits_at(tokenizer, text, int(cut)) for cut in cuts):
        return np.array(tokenizer.encode(text).ids, dtype=dtype)
    parts = [np.array(ends[0], dtype=dtype)]
    for start in range(0, len(pieces), PIECES_PER_BATCH):
        batch = tokenizer.encode_batch_fast(pieces[start : start + PIECES_PER_BATCH], add_special_tokens=False)
        parts += [np.array(encoding.ids, dtype=dtype) for encoding in batch]
    return np.concatenate([*parts, np.array(ends[1], dtype=dtype)])


def encode_documents(tokenizer: Tokenizer, texts: list[str]) -> list:
    """Each document's ids (see the module): the short ones encoded in one batch, the long ones in pieces."""
    ids: list = [None] * len(texts)
    short = [index for index, text in enumerate(texts) if len(text) <= PIECE_CHARS]
    for index, encoding in zip(short, tokenizer.encode_batch_fast([texts[index] for index in short]), strict=True):
        ids[index] = encoding.ids
    for index, text in enumerate(texts):
        if ids[index] is None:
            ids[index] = encode_long(tokenizer, text)
    return ids


def as_list_array(ids: list[list[int]], dtype: np.dtype) -> pa.ListArray:
    """Documents' ids as one flat buffer of `dtype` plus offsets (numpy per document: 8x faster than pa.array)."""
    offsets = np.zeros(len(ids) + 1, dtype=np.int32)
    np.cumsum([len(document) for document in ids], out=offsets[1:])
    flat = np.concatenate([np.array(document, dtype=dtype) for document in ids]) if ids else np.zeros(0, dtype)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat))


def unknown_id(tokenizer: Tokenizer) -> int | None:
    """The id of the token a word outside the vocabulary becomes ([UNK]); None for a model without one (byte-level
    BPE reads every text)."""
    token = getattr(tokenizer.model, "unk_token", None)
    return None if token is None else tokenizer.token_to_id(token)


def tokenize_shard(raw_shard: str, tokenizer_dir: str, duplicates: str, out: str, stats: str) -> dict:
    """Write `tokenizer(text)["input_ids"]` of each kept document of `raw_shard`, in order, to `out`, and the
    counts (documents, tokens, tokens unknown to the tokenizer, exact and near duplicates skipped, vocabulary size)
    to `stats`."""
    tokenizer = load_tokenizer(tokenizer_dir)
    dtype = ids_dtype(tokenizer.get_vocab_size())
    schema = token_schema(tokenizer.get_vocab_size())
    removals = read_table(duplicates)
    skip = duplicate_rows(removals).get(shard_key(raw_shard))
    removed = removed_counts(removals, shard_key(raw_shard))
    unknown = unknown_id(tokenizer)
    docs = tokens = unknown_tokens = 0
    with stream_writer(out, schema) as writer:
        for texts in shard_texts(raw_shard, skip):
            ids = as_list_array(encode_documents(tokenizer, texts.to_pylist()), dtype)
            writer.write_batch(pa.record_batch([ids], schema=schema))
            docs += len(ids)
            tokens += len(ids.values)
            if unknown is not None:
                unknown_tokens += int(np.count_nonzero(ids.values.to_numpy() == unknown))
    counts = {
        "docs": docs,
        "tokens": tokens,
        "unknown_tokens": unknown_tokens,
        "duplicates": removed[EXACT],
        "near_duplicates": removed[NEAR],
        "vocab_size": tokenizer.get_vocab_size(),
    }
    write_json(stats, counts)
    return counts
