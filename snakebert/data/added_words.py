"""A continued run's domain vocabulary (`tokenizer.add_tokens: N`): the N words of the corpus that cost the base's
tokenizer the most tokens beyond one each (frequency x (pieces - 1), the tokens adding the word saves), appended to the
end of the base's WordPiece vocabulary, so that every id the base had keeps its meaning. Words are the corpus's text as
the base's own normaliser and pre-tokenizer cut it; ties go to the earlier word in sorted order. Their embedding rows
start as the mean of the rows of the pieces the base splits them into (training/model.grow_embeddings)."""

import json
from collections import Counter
from pathlib import Path

from tokenizers import Tokenizer

from ..errors import DataError
from .corpus import shard_texts
from .dedup import duplicate_rows, shard_key

WHAT = "tokenizer.add_tokens"


def word_counts(backend, raw_shards: list[str], duplicates: str) -> Counter:
    """How often each word of the deduplicated corpus occurs, as the base tokenizer's `backend` (a `tokenizers`
    Tokenizer) normalises and pre-tokenizes the text."""
    skip = duplicate_rows(duplicates)
    normalize, split = backend.normalizer.normalize_str, backend.pre_tokenizer.pre_tokenize_str
    counts = Counter()
    for raw in raw_shards:
        for texts in shard_texts(raw, skip.get(shard_key(raw))):
            for text in texts.to_pylist():
                counts.update(word for word, _ in split(normalize(text)))
    return counts


def chosen_words(backend, counts: Counter, wanted: int) -> list[str]:
    """The `wanted` words whose pieces under `backend` save the most tokens once each is one token."""
    words = sorted(counts)
    encodings = backend.encode_batch(words, add_special_tokens=False)
    saved = {word: counts[word] * (len(encoding.ids) - 1) for word, encoding in zip(words, encodings, strict=True)}
    candidates = sorted((word for word in words if saved[word] > 0), key=lambda word: (-saved[word], word))
    if len(candidates) < wanted:
        raise DataError(
            f"{WHAT} is {wanted}, but the corpus has only {len(candidates)} distinct words that the base's tokenizer "
            "splits into pieces; lower it"
        )
    return candidates[:wanted]


def add_words(folder: Path, raw_shards: list[str], duplicates: str, wanted: int) -> list[str]:
    """Append the chosen words to the WordPiece vocabulary of the tokenizer saved in `folder` (its tokenizer.json,
    without truncation or padding); return them in id order."""
    path = folder / "tokenizer.json"
    backend = Tokenizer.from_file(str(path))
    spec = json.loads(path.read_text(encoding="utf-8"))
    if spec["model"]["type"] != "WordPiece":
        raise DataError(
            f"{WHAT} appends words to a WordPiece vocabulary (BERT's); the base's tokenizer is {spec['model']['type']}"
        )
    words = chosen_words(backend, word_counts(backend, raw_shards, duplicates), wanted)
    vocabulary = spec["model"]["vocab"]
    taken = max([*vocabulary.values(), *(token["id"] for token in spec["added_tokens"])]) + 1
    vocabulary.update({word: taken + index for index, word in enumerate(words)})
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return words
