"""Normalise document texts, vectorised with Arrow compute (RE2 patterns), and count what was removed."""

from collections import Counter
from hashlib import blake2b

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError

HORIZONTAL_SPACE = r"[\t\x0b\f\r\p{Zs}]+"
LINE_SEPARATOR = r"[\x{85}\p{Zl}\p{Zp}]"


def _replace(texts: pa.Array, pattern: str, replacement: str, key: str) -> pa.Array:
    try:
        return pc.replace_substring_regex(texts, pattern=pattern, replacement=replacement)
    except pa.ArrowInvalid as error:
        raise DataError(f"{key}: invalid RE2 pattern {pattern!r} ({error})") from None


def check_patterns(patterns: list[str]) -> None:
    """Refuse an invalid pattern before any document is read (even if no document would reach it)."""
    for pattern in patterns:
        _replace(pa.array([""]), pattern, "", "clean.strip_patterns")


def normalise_whitespace(texts: pa.Array) -> pa.Array:
    """One space for each run of horizontal space, no space around newlines, at most one blank line."""
    texts = _replace(texts, LINE_SEPARATOR, "\n", "whitespace")
    texts = _replace(texts, HORIZONTAL_SPACE, " ", "whitespace")
    texts = _replace(texts, r" ?\n ?", "\n", "whitespace")
    texts = _replace(texts, r"\n{3,}", "\n\n", "whitespace")
    return pc.utf8_trim_whitespace(texts)


def clean_batch(texts: pa.Array, clean: dict, counts: Counter) -> pa.Array:
    """The cleaned, non-empty documents of a batch that are long enough; counts go into `counts`."""
    counts["docs_read"] += len(texts)
    present = pc.and_(pc.is_valid(texts), pc.greater(pc.binary_length(texts), 0)).fill_null(False)
    texts = texts.filter(present)
    counts["docs_null_or_empty"] += int(len(present) - len(texts))
    counts["chars_read"] += int(pc.sum(pc.utf8_length(texts)).as_py() or 0)
    if clean["unicode_normalization"]:
        texts = pc.utf8_normalize(texts, form=clean["unicode_normalization"])
    for pattern in clean["strip_patterns"]:
        texts = _replace(texts, pattern, "", "clean.strip_patterns")
    if clean["normalize_whitespace"]:
        texts = normalise_whitespace(texts)
    long_enough = pc.greater_equal(pc.utf8_length(texts), max(clean["min_chars"], 1))
    kept = texts.filter(long_enough)
    counts["docs_too_short"] += len(texts) - len(kept)
    counts["docs"] += len(kept)
    counts["chars"] += int(pc.sum(pc.utf8_length(kept)).as_py() or 0)
    return kept


def text_hashes(texts: pa.Array) -> np.ndarray:
    """A 64-bit BLAKE2b digest of each text's UTF-8 bytes: the key of exact deduplication."""
    return np.array(
        [int.from_bytes(blake2b(text.encode(), digest_size=8).digest(), "little") for text in texts.to_pylist()],
        dtype=np.uint64,
    )
