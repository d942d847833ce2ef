"""A continued run's tokenizer (`model.init_from`): the base's own, saved unchanged with `save_pretrained`, so that the
ids of any text are the base's, each document whole (a truncation or padding the base saved is dropped); with
`tokenizer.add_tokens`, words of the corpus appended to its vocabulary after them (added_words.py). Refused before
anything is written: a base folder with weights and no tokenizer files, or tokenizer files without a vocabulary
(AutoTokenizer would fall back to a tokenizer of a few tokens and make every word unknown: model_folders.py), a
tokenizer that asks for remote code (its auto_map would be saved into results/tokenizer and the published model), a
tokenizer without its fast form (tokenizer.json, which the data jobs read) and one without every special-token role a
masked LM needs. A vocabulary above 65,535 tokens (XLM-R's, mBERT's) is stored as uint32 ids (files/block_format)."""

import json
from pathlib import Path

from ..errors import DataError
from ..files.atomic import atomic_path
from ..model_folders import remote_code_problem, tokenizer_problem
from ..named_loading import load_named
from .added_words import add_words
from .special_tokens import SPECIAL_ROLES, check_roles

WHAT = "model.init_from"


def load_base_tokenizer(base: str):
    """The base's tokenizer, checked (see the module); its remote code, if it asks for some, is never run."""
    from transformers import AutoTokenizer  # the job's only heavy import

    problem = tokenizer_problem(base, WHAT)
    if problem:
        raise DataError(problem)
    tokenizer = load_named(AutoTokenizer.from_pretrained, base, WHAT)
    problem = remote_code_problem(tokenizer.init_kwargs, "tokenizer_config.json")  # a Hub id's: a folder's is refused
    if problem:
        raise DataError(f"{WHAT} {base!r}: {problem}")
    if not tokenizer.is_fast:
        raise DataError(
            f"{WHAT} {base!r}: its tokenizer ({type(tokenizer).__name__}) has no fast form (tokenizer.json)"
        )
    check_roles(tokenizer, f"{WHAT} {base!r}: its tokenizer", "masked language modelling")
    return tokenizer


def unbounded(path: Path) -> None:
    """The tokenizer.json at `path` without the truncation and padding a sentence-embedding checkpoint saves in it
    (all-MiniLM-L6-v2's: every text cut and padded to 128 tokens), which would cut every document of the corpus and
    pad it with [PAD]: the data jobs encode documents whole (the ids of every token are the base's)."""
    spec = json.loads(path.read_text(encoding="utf-8"))
    if spec.get("truncation") or spec.get("padding"):
        path.write_text(json.dumps({**spec, "truncation": None, "padding": None}, ensure_ascii=False), encoding="utf-8")


def keep_tokenizer(base: str, out: str, add_tokens: int = 0, raw_shards=(), duplicates: str | None = None) -> dict:
    """Save the base's tokenizer into the folder `out`, with `add_tokens` words of the corpus (`raw_shards` less the
    `duplicates`) appended to its vocabulary (added_words.py); return its size, special tokens and added words."""
    tokenizer = load_base_tokenizer(base)
    with atomic_path(out) as tmp:
        tokenizer.save_pretrained(str(tmp))
        unbounded(tmp / "tokenizer.json")
        added = add_words(tmp, list(raw_shards), duplicates, add_tokens) if add_tokens else []
    return {
        "tokens": len(tokenizer) + len(added),
        **{role: str(getattr(tokenizer, role)) for role in SPECIAL_ROLES},
        "added_words": added,
    }
