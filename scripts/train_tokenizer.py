"""Train a BERT WordPiece tokenizer on a bounded, deterministic sample of the corpus; save it for AutoTokenizer."""

import argparse
import json
from collections.abc import Callable, Iterator
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoTokenizer, BertTokenizerFast

from atomic import atomic_path
from corpus import sample_texts, shard_texts
from dedup import duplicate_rows, shard_key
from errors import DataError, run_cli

SPECIAL_ROLES = ("pad_token", "unk_token", "cls_token", "sep_token", "mask_token")
BERT_SPECIALS = {
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
}
Sample = Callable[[], Iterator[list[str]]]


def bert_style(settings: dict) -> dict:
    """Normaliser options and special tokens: from config, or taken over from the `base` tokenizer."""
    if not settings.get("base"):
        return {
            "do_lower_case": settings["lowercase"],
            "strip_accents": None,
            "tokenize_chinese_chars": True,
            **BERT_SPECIALS,
        }
    base = AutoTokenizer.from_pretrained(settings["base"])
    if not isinstance(base, BertTokenizerFast):
        raise DataError(
            f"tokenizer.base {settings['base']!r} is a {type(base).__name__}, not a BERT WordPiece tokenizer"
        )
    return {
        "do_lower_case": base.do_lower_case,
        "strip_accents": base.strip_accents,
        "tokenize_chinese_chars": base.tokenize_chinese_chars,
        **{role: str(getattr(base, role)) for role in SPECIAL_ROLES},
    }


def wordpiece(style: dict) -> Tokenizer:
    """An untrained BERT WordPiece pipeline: BERT normaliser and pre-tokenizer, `##` continuations."""
    tokenizer = Tokenizer(models.WordPiece(unk_token=style["unk_token"]))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True,
        handle_chinese_chars=style["tokenize_chinese_chars"],
        strip_accents=style["strip_accents"],
        lowercase=style["do_lower_case"],
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece(prefix="##")
    return tokenizer


def train(style: dict, sample: Sample, vocab_size: int, min_frequency: int, pinned: list[str]) -> Tokenizer:
    specials = [style[role] for role in SPECIAL_ROLES]
    tokenizer = wordpiece(style)
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=specials + pinned,
        continuing_subword_prefix="##",
        show_progress=False,
    )
    tokenizer.train_from_iterator(sample(), trainer)
    return tokenizer


def train_deterministic(style: dict, sample: Sample, vocab_size: int, min_frequency: int) -> Tokenizer:
    """Train twice: first to find the initial symbols, then with their ids pinned in sorted order.

    The trainer numbers initial symbols in hash-map order, and ties between equally frequent merges
    are broken by those numbers, so an unpinned run can learn a different vocabulary each time.
    """
    specials = [style[role] for role in SPECIAL_ROLES]
    alphabet = sorted(set(train(style, sample, 1, 1, []).get_vocab()) - set(specials))
    tokenizer = train(style, sample, vocab_size, min_frequency, alphabet)
    spec = json.loads(tokenizer.to_str())
    spec["added_tokens"] = [token for token in spec["added_tokens"] if token["content"] in specials]
    tokenizer = Tokenizer.from_str(json.dumps(spec))
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{style['cls_token']} $A {style['sep_token']}",
        pair=f"{style['cls_token']} $A {style['sep_token']} $B:1 {style['sep_token']}:1",
        special_tokens=[(style[role], tokenizer.token_to_id(style[role])) for role in ("cls_token", "sep_token")],
    )
    return tokenizer


def sample_fraction(raw_shards: list[str], sample_chars: int) -> float:
    """The share of documents to sample so that about `sample_chars` characters are read."""
    chars = sum(json.loads(Path(raw).with_suffix(".json").read_text())["chars"] for raw in raw_shards)
    if chars == 0:
        raise DataError("the corpus is empty after cleaning: no text to train the tokenizer on")
    return min(1.0, sample_chars / chars)


def corpus_sample(raw_shards: list[str], duplicates: str, sample_chars: int) -> Sample:
    """A function that yields the same sample of deduplicated documents each time it is called."""
    skip = duplicate_rows(duplicates)
    fraction = sample_fraction(raw_shards, sample_chars)

    def sample() -> Iterator[list[str]]:
        batches = (texts for raw in raw_shards for texts in shard_texts(raw, skip.get(shard_key(raw))))
        return sample_texts(batches, fraction)

    return sample


def train_tokenizer(raw_shards: list[str], duplicates: str, settings: dict, out: str) -> BertTokenizerFast:
    """Train on the sample and save with save_pretrained into `out` (written atomically)."""
    style = bert_style(settings)
    sample = corpus_sample(raw_shards, duplicates, settings["sample_chars"])
    backend = train_deterministic(style, sample, settings["vocab_size"], settings["min_frequency"])
    tokenizer = BertTokenizerFast(tokenizer_object=backend, model_max_length=settings["model_max_length"], **style)
    with atomic_path(out) as tmp:
        tokenizer.save_pretrained(tmp)
    return tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--settings", required=True, help="the `tokenizer` config, as JSON")
    parser.add_argument("--duplicates", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("raw_shards", nargs="+")
    args = parser.parse_args()
    train_tokenizer(args.raw_shards, args.duplicates, json.loads(args.settings), args.out)


if __name__ == "__main__":
    run_cli(main)
