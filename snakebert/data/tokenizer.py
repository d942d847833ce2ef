"""Train a BERT WordPiece tokenizer on a bounded, deterministic sample of the corpus; save it for AutoTokenizer.

The job needs only `tokenizers`: it writes the two files of transformers' `save_pretrained` itself, because
importing transformers (and torch with it) would add about 2 s of serial start-up to the data half.
"""

import json
from collections.abc import Callable, Iterator

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

from ..errors import DataError
from ..files.atomic import atomic_path
from ..files.json_files import read_fields
from ..named_loading import load_named
from .corpus import sample_texts, shard_texts
from .dedup import duplicate_rows, shard_key
from .special_tokens import SPECIAL_ROLES, check_roles

BERT_SPECIALS = {
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
}
Sample = Callable[[], Iterator[list[str]]]
MIN_SAMPLED_FILL = 0.5  # a vocabulary below this share of tokenizer.vocab_size, from part of the corpus, is refused
MIN_CORPUS_FILL = 0.1  # and from the whole corpus, below this share


def load_base(name: str):
    """The `tokenizer.base` tokenizer, from a folder if there is one by that name, else from the Hub."""
    from transformers import AutoTokenizer

    return load_named(AutoTokenizer.from_pretrained, name, "tokenizer.base")


def bert_style(settings: dict) -> dict:
    """Normaliser options and special tokens: from config, or taken over from the `base` tokenizer."""
    if not settings.get("base"):
        return {
            "do_lower_case": settings["lowercase"],
            "strip_accents": None,
            "tokenize_chinese_chars": True,
            **BERT_SPECIALS,
        }
    from transformers import BertTokenizerFast  # only for a base tokenizer: a heavy import

    base = load_base(settings["base"])
    if not isinstance(base, BertTokenizerFast):
        raise DataError(
            f"tokenizer.base {settings['base']!r} is a {type(base).__name__}, not a BERT WordPiece tokenizer"
        )
    check_roles(base, f"tokenizer.base {settings['base']!r}", "BERT")
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


def initial_symbols(tokenizer: Tokenizer, sample: Sample) -> list[str]:
    """Every character of the sample as the tokenizer sees it, and `##c` for each one that can continue a word.

    One pass in Python over the sample's characters; each distinct character then goes through the real
    normaliser and pre-tokenizer alone: whitespace is dropped, and a character the pre-tokenizer splits off
    (punctuation) never continues a word. As in the original BERT vocabularies, every other character gets
    its continuation, so no word turns into [UNK] for a character seen only at word starts in the sample.
    """
    raw: set[str] = set()
    for texts in sample():
        for text in texts:
            raw.update(text)
    chars = {char for original in raw for char in tokenizer.normalizer.normalize_str(original)}
    split = tokenizer.pre_tokenizer.pre_tokenize_str
    alphabet = {char for char in chars if split(char)}
    continuing = {f"##{char}" for char in alphabet if len(split(f"a{char}a")) == 1}
    return sorted(alphabet | continuing)


def train_deterministic(style: dict, sample: Sample, vocab_size: int, min_frequency: int) -> Tokenizer:
    """Train with the initial symbols pinned, in sorted order, as the first ids after the special tokens.

    The trainer numbers initial symbols in hash-map order, and ties between equally frequent merges
    are broken by those numbers, so an unpinned run can learn a different vocabulary each time.
    """
    specials = [style[role] for role in SPECIAL_ROLES]
    tokenizer = wordpiece(style)
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=specials + initial_symbols(tokenizer, sample),
        continuing_subword_prefix="##",
        show_progress=False,
    )
    tokenizer.train_from_iterator(sample(), trainer)
    spec = json.loads(tokenizer.to_str())
    spec["added_tokens"] = [token for token in spec["added_tokens"] if token["content"] in specials]
    tokenizer = Tokenizer.from_str(json.dumps(spec))
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{style['cls_token']} $A {style['sep_token']}",
        pair=f"{style['cls_token']} $A {style['sep_token']} $B:1 {style['sep_token']}:1",
        special_tokens=[(style[role], tokenizer.token_to_id(style[role])) for role in ("cls_token", "sep_token")],
    )
    return tokenizer


def sample_fraction(raw_stats: list[str], sample_chars: int) -> float:
    """The share of the corpus to sample so that about `sample_chars` characters are read (from the text shards'
    counts); 1 for the whole corpus."""
    chars = sum(read_fields(stats, {"chars": int})["chars"] for stats in raw_stats)
    if chars == 0:
        raise DataError("the corpus is empty after cleaning: no text to train the tokenizer on")
    return min(1.0, sample_chars / chars)


def corpus_sample(raw_shards: list[str], duplicates: str, fraction: float) -> Sample:
    """A function that yields the same sample (`fraction` of the deduplicated corpus) each time it is called."""
    skip = duplicate_rows(duplicates)

    def sample() -> Iterator[list[str]]:
        batches = (texts for raw in raw_shards for texts in shard_texts(raw, skip.get(shard_key(raw))))
        return sample_texts(batches, fraction)

    return sample


def tokenizer_config(style: dict, model_max_length: int) -> dict:
    """The tokenizer_config.json that `BertTokenizerFast(...).save_pretrained` writes for this tokenizer."""
    return {
        "backend": "tokenizers",
        **style,
        "model_max_length": model_max_length,
        "tokenizer_class": "BertTokenizer",
    }


def save_pretrained(backend: Tokenizer, config: dict, out: str) -> None:
    """The files of transformers' `save_pretrained`, byte for byte, into `out` (written atomically)."""
    with atomic_path(out) as tmp:
        tmp.mkdir()
        backend.save(str(tmp / "tokenizer.json"))
        text = json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (tmp / "tokenizer_config.json").write_text(text, encoding="utf-8")


def check_filled(backend: Tokenizer, settings: dict, fraction: float) -> None:
    """Refuse a vocabulary far smaller than asked: below half of it from a sample of part of the corpus (a sample too
    small for it), or below a tenth from the whole corpus (a corpus that cannot fill it). Either would turn much of
    the data set into [UNK] or single characters."""
    learned, asked = backend.get_vocab_size(), settings["vocab_size"]
    if fraction < 1 and learned < asked * MIN_SAMPLED_FILL:
        raise DataError(
            f"the tokenizer learned {learned} tokens of the {asked} asked (tokenizer.vocab_size): its sample of "
            f"tokenizer.sample_chars = {settings['sample_chars']:,} characters is too small for that vocabulary; "
            f"raise tokenizer.sample_chars or lower tokenizer.vocab_size to about {learned}"
        )
    if learned < asked * MIN_CORPUS_FILL:
        raise DataError(
            f"the tokenizer learned {learned} tokens of the {asked} asked (tokenizer.vocab_size) from the whole "
            f"corpus: it is too small for that vocabulary; lower tokenizer.vocab_size to about {learned}"
        )


def train_tokenizer(raw_shards: list[str], raw_stats: list[str], duplicates: str, settings: dict, out: str) -> dict:
    """Train on the sample and save it into `out` for AutoTokenizer; returns its tokenizer_config."""
    style = bert_style(settings)
    fraction = sample_fraction(raw_stats, settings["sample_chars"])
    sample = corpus_sample(raw_shards, duplicates, fraction)
    backend = train_deterministic(style, sample, settings["vocab_size"], settings["min_frequency"])
    check_filled(backend, settings, fraction)
    config = tokenizer_config(style, settings["model_max_length"])
    save_pretrained(backend, config, out)
    return config
