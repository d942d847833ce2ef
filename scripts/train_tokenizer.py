"""Train a BERT WordPiece tokenizer on a bounded, deterministic sample of the corpus; save it for AutoTokenizer."""

import argparse
import json
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoTokenizer, BertTokenizerFast

from atomic import atomic_path
from corpus import sample_texts, shard_texts
from dedup import duplicate_rows, shard_key
from errors import DataError, run_cli

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def wordpiece(lowercase: bool) -> Tokenizer:
    """An untrained BERT WordPiece pipeline: BERT normaliser and pre-tokenizer, `##` continuations."""
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=lowercase
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece(prefix="##")
    return tokenizer


def add_bert_template(tokenizer: Tokenizer) -> None:
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )


def canonicalise_vocab(tokenizer_json: Path) -> None:
    """Renumber the learned vocabulary in sorted order, keeping the special tokens' ids.

    The trainer numbers tokens in an order that varies between runs (hash-map order); the vocabulary
    itself does not. Sorting makes the saved tokenizer byte-identical for identical input and config.
    """
    spec = json.loads(tokenizer_json.read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    special = {token["content"] for token in spec["added_tokens"]}
    learned = sorted(token for token in vocab if token not in special)
    free_ids = sorted(index for token, index in vocab.items() if token not in special)
    vocab.update(zip(learned, free_ids, strict=True))
    spec["model"]["vocab"] = dict(sorted(vocab.items(), key=lambda item: item[1]))
    tokenizer_json.write_text(json.dumps(spec, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def sample_fraction(raw_shards: list[str], sample_chars: int) -> float:
    """The share of documents to sample so that about `sample_chars` characters are read."""
    chars = sum(json.loads(Path(raw).with_suffix(".json").read_text())["chars"] for raw in raw_shards)
    if chars == 0:
        raise DataError("the corpus is empty after cleaning: no text to train the tokenizer on")
    return min(1.0, sample_chars / chars)


def corpus_sample(raw_shards: list[str], duplicates: str, sample_chars: int):
    skip = duplicate_rows(duplicates)
    batches = (texts for raw in raw_shards for texts in shard_texts(raw, skip.get(shard_key(raw))))
    return sample_texts(batches, sample_fraction(raw_shards, sample_chars))


def train_tokenizer(raw_shards: list[str], duplicates: str, settings: dict, out: str) -> BertTokenizerFast:
    """Train on the sample and save with save_pretrained into `out` (written atomically)."""
    sample = corpus_sample(raw_shards, duplicates, settings["sample_chars"])
    if settings.get("base"):
        base = AutoTokenizer.from_pretrained(settings["base"])
        tokenizer = base.train_new_from_iterator(
            sample, vocab_size=settings["vocab_size"], min_frequency=settings["min_frequency"]
        )
    else:
        backend = wordpiece(settings["lowercase"])
        trainer = trainers.WordPieceTrainer(
            vocab_size=settings["vocab_size"],
            min_frequency=settings["min_frequency"],
            special_tokens=SPECIAL_TOKENS,
            continuing_subword_prefix="##",
            show_progress=False,
        )
        backend.train_from_iterator(sample, trainer)
        add_bert_template(backend)
        tokenizer = BertTokenizerFast(tokenizer_object=backend, do_lower_case=settings["lowercase"])
    tokenizer.model_max_length = settings["model_max_length"]
    with atomic_path(out) as tmp:
        tokenizer.save_pretrained(tmp)
        canonicalise_vocab(tmp / "tokenizer.json")
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
