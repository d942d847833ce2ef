"""A saved tokenizer's vocabulary, read from its files without transformers: which file holds it, as AutoTokenizer
picks one (tokenizer.json, else a slow tokenizer's vocab.txt, vocab.json with merges.txt, or a sentencepiece model),
and how many ids it gives. A folder whose tokenizer files hold no vocabulary (a tokenizer_config.json alone) would load
as a tokenizer of its few special tokens, silently; one whose ids do not fit the model's embedding rows is not the
model's tokenizer."""

import json
from pathlib import Path

from .errors import DataError

SENTENCEPIECE_FILES = ("spiece.model", "sentencepiece.bpe.model", "spm.model", "sentencepiece.model", "tokenizer.model")
VOCABULARIES = "tokenizer.json, vocab.txt, vocab.json with merges.txt, or a sentencepiece model (spiece.model, ...)"
SLOW_ADDED = ("added_tokens.json", "tokenizer_config.json")  # a slow tokenizer's added tokens: {token: id}, or by id


def vocabulary(folder: Path) -> tuple[Path, int] | None:
    """The file holding the vocabulary of the tokenizer saved in `folder`, and the ids it gives (one past the
    highest, its added tokens counted); None if it holds none."""
    if (folder / "tokenizer.json").is_file():
        ids = tokenizer_json_ids(folder / "tokenizer.json")
        return (folder / "tokenizer.json", ids) if ids else None
    slow = [(folder / "vocab.txt", vocab_txt_ids), (folder / "vocab.json", vocab_json_ids)]
    slow += [(folder / name, sentencepiece_ids) for name in SENTENCEPIECE_FILES]
    for path, count in slow:
        if path.is_file():
            ids = count(path)
            return (path, max([ids, *added_ids(folder)])) if ids else None
    return None


def read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise DataError(f"{path} cannot be read ({type(error).__name__}): save the tokenizer again") from None


def tokenizer_json_ids(path: Path) -> int:
    """The ids of a tokenizer.json; 0 when its model's vocabulary holds nothing but its added tokens."""
    spec = read_json(path)
    model = spec.get("model") if isinstance(spec, dict) else None
    vocab = model.get("vocab") if isinstance(model, dict) else None
    added = spec.get("added_tokens", []) if isinstance(spec, dict) else None
    if isinstance(vocab, list):  # Unigram's [piece, score] pairs, numbered in order
        vocab = {str(entry[0]) if isinstance(entry, list) and entry else "": index for index, entry in enumerate(vocab)}
    if not (isinstance(vocab, dict) and isinstance(added, list) and all(isinstance(entry, dict) for entry in added)):
        raise DataError(f"{path}: its model has no vocabulary, or its added_tokens are not a list of tokens")
    ids = [*vocab.values(), *(entry.get("id") for entry in added)]
    if not all(type(number) is int and number >= 0 for number in ids):
        raise DataError(f"{path}: its vocabulary holds an id that is not a whole number of at least 0")
    own = set(vocab) - {entry.get("content") for entry in added}
    return max(ids) + 1 if own else 0


def vocab_txt_ids(path: Path) -> int:
    """A WordPiece vocab.txt: a token a line."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return len(text.split("\n")) - text.endswith("\n") if text else 0


def vocab_json_ids(path: Path) -> int:
    """A BPE vocab.json ({token: id}), whose merges.txt must be beside it."""
    vocab = read_json(path)
    if not (path.parent / "merges.txt").is_file():
        raise DataError(f"{path} has no merges.txt beside it, which a BPE vocabulary needs: save the tokenizer again")
    if not isinstance(vocab, dict) or not all(type(number) is int and number >= 0 for number in vocab.values()):
        raise DataError(f"{path} is not an object of tokens and their ids: save the tokenizer again")
    return max(vocab.values()) + 1 if vocab else 0


def sentencepiece_ids(path: Path) -> int:
    """The pieces of a sentencepiece model (its protobuf's field 1, each piece); a file that is not one is refused."""
    data, at, pieces = path.read_bytes(), 0, 0
    while at < len(data):
        tag, at = varint(data, at)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            _, at = varint(data, at)
        elif wire == 2:
            length, at = varint(data, at)
            at += length
        elif wire in (1, 5):
            at += 8 if wire == 1 else 4
        else:
            at = len(data) + 1
        pieces += field == 1 and wire == 2
    if at != len(data):
        raise DataError(f"{path} is not a whole sentencepiece model: save the tokenizer again")
    return pieces


def varint(data: bytes, at: int) -> tuple[int, int]:
    value, shift = 0, 0
    while at < len(data):
        value |= (data[at] & 0x7F) << shift
        shift, at = shift + 7, at + 1
        if not data[at - 1] & 0x80:
            return value, at
    return value, len(data) + 1


def added_ids(folder: Path) -> list[int]:
    """The ids of a slow tokenizer's added tokens (added_tokens.json; tokenizer_config.json's added_tokens_decoder)."""
    ids = []
    if (folder / SLOW_ADDED[0]).is_file():
        found = read_json(folder / SLOW_ADDED[0])
        ids += [value for value in found.values() if type(value) is int] if isinstance(found, dict) else []
    if (folder / SLOW_ADDED[1]).is_file():
        found = read_json(folder / SLOW_ADDED[1])
        decoder = found.get("added_tokens_decoder") if isinstance(found, dict) else None
        ids += [int(key) for key in decoder if key.isdigit()] if isinstance(decoder, dict) else []
    return [number + 1 for number in ids]


def ids_problem(ids: int, rows: int) -> str | None:
    """Why a tokenizer of `ids` ids is not that of a model with `rows` embedding rows: more ids than rows (an id past
    them has no embedding), or fewer than half (a tokenizer of another model, or of a few tokens)."""
    if ids > rows:
        return f"holds {ids} ids, more than the {rows} rows of the model's embeddings (vocab_size)"
    if ids * 2 < rows:
        return f"holds {ids} ids, fewer than half the {rows} rows of the model's embeddings (vocab_size)"
    return None
