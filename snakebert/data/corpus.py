"""Read the deduplicated corpus back from the text shards, batch by batch, memory-mapped."""

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..files.arrow_streams import stream_batches


def shard_texts(raw_shard: str, skip_rows: np.ndarray | None = None) -> Iterator[pa.Array]:
    """The `text` batches of one shard, without the rows in `skip_rows` (duplicates of earlier documents)."""
    start = 0
    for batch in stream_batches(raw_shard):
        texts = batch.column("text")
        if skip_rows is not None and len(skip_rows):
            rows = np.arange(start, start + len(texts))
            texts = texts.filter(pa.array(~np.isin(rows, skip_rows)))
        start += len(batch)
        yield texts


def texts_at(raw_shard: str, rows: list[int], chars: int) -> dict[int, str]:
    """The first `chars` characters of the documents at `rows` of one shard, by row (a few, for inspection)."""
    wanted, found, start = set(rows), {}, 0
    for batch in stream_batches(raw_shard):
        for row in sorted(wanted & set(range(start, start + len(batch)))):
            found[row] = batch.column("text")[row - start].as_py()[:chars]
        start += len(batch)
    return found


PIECE_CHARS = 10_000  # the tokenizer's sample takes documents in pieces of about this size, cut at whitespace
WHITESPACE = (" ", "\n", "\t", "\r")


def text_pieces(text: str, limit: int = PIECE_CHARS, whole_words: bool = False) -> list[str]:
    """`text` cut at whitespace into pieces of at most `limit` characters; joined, the pieces are `text`. A run of
    `limit` characters without whitespace is cut where it reaches the limit, or, with `whole_words`, at the next
    whitespace after it (a longer piece)."""
    pieces, start = [], 0
    while len(text) - start > limit:
        cut = max(text.rfind(space, start + 1, start + limit) for space in WHITESPACE)
        if cut <= start and whole_words:
            after = [found for space in WHITESPACE if (found := text.find(space, start + limit)) > 0]
            cut = min(after, default=len(text))
        elif cut <= start:
            cut = start + limit
        pieces.append(text[start:cut])
        start = cut
    if start < len(text) or not pieces:
        pieces.append(text[start:])
    return pieces


def sample_texts(batches: Iterator[pa.Array], fraction: float) -> Iterator[list[str]]:
    """An evenly spaced `fraction` of the corpus's pieces (each document cut into text_pieces), chosen by their
    position alone (deterministic): a sample of about `fraction` of the characters, also of a corpus of a few huge
    documents. A batch of documents no longer than a piece is sampled without reading its texts into Python."""
    seen = 0
    for texts in batches:
        if (pc.max(pc.utf8_length(texts)).as_py() or 0) <= PIECE_CHARS:
            pieces = texts
        else:
            pieces = pa.array([piece for text in texts.to_pylist() if text for piece in text_pieces(text)], pa.string())
        positions = np.arange(seen, seen + len(pieces))
        chosen = np.floor((positions + 1) * fraction) > np.floor(positions * fraction)
        seen += len(pieces)
        if chosen.any():
            yield pieces.filter(pa.array(chosen)).to_pylist()
