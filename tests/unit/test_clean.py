"""Cleaning (NFC, patterns, whitespace, length) and exact deduplication across shards."""

import json
import re
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest
from helpers import raw_shard

from snakebert.data import dedup
from snakebert.data.clean import clean_batch
from snakebert.data.dedup import SeenHashes, duplicate_rows, find_duplicates
from snakebert.errors import DataError

CLEAN = {
    "unicode_normalization": "NFC",
    "strip_patterns": [r"(?i)\[(?:applause|laughter|inaudible|cheers)[^\]\n]{0,80}\]"],
    "normalize_whitespace": True,
    "min_chars": 12,
    "dedup": True,
}


def test_clean_normalises_strips_notes_and_whitespace_and_counts_removals():
    texts = pa.array(
        [
            "Cafe\u0301 society  met\t\ttoday. [Applause] Then   more.\n\n\n\nEnd [laughter] .",
            None,
            "",
            "too short",
            "  \u00a0Spaces\u2003everywhere\u2028and a line separator  ",
        ]
    )
    counts = Counter()
    kept = clean_batch(texts, CLEAN, counts).to_pylist()
    assert kept == ["Caf\u00e9 society met today. Then more.\n\nEnd .", "Spaces everywhere\nand a line separator"]
    assert counts["docs_read"] == 5
    assert counts["docs_null_or_empty"] == 2
    assert counts["docs_too_short"] == 1
    assert counts["docs"] == 2
    assert counts["chars"] == sum(len(text) for text in kept)


def test_cleaning_can_be_switched_off():
    off = {**CLEAN, "unicode_normalization": None, "strip_patterns": [], "normalize_whitespace": False, "min_chars": 1}
    text = "Cafe\u0301  [Applause]\n\n\n\n"
    assert clean_batch(pa.array([text]), off, Counter()).to_pylist() == [text]


def test_seen_hashes_keeps_first_occurrences_across_batches_and_merges():
    seen = SeenHashes()
    marks = [seen.first_seen(np.array(batch, dtype=np.uint64)) for batch in ([5, 3, 5], [3, 7, 8], [8, 9, 5, 9])]
    assert [mark.tolist() for mark in marks] == [
        [True, True, False],
        [False, True, True],
        [False, True, False, False],
    ]
    assert len(seen.levels) < 3


def test_an_empty_shard_before_others_is_no_level_to_search():  # a shard that cleaning or the filters emptied
    seen = SeenHashes()
    assert seen.first_seen(np.zeros(0, dtype=np.uint64)).tolist() == []
    assert seen.first_seen(np.array([4, 4, 2], dtype=np.uint64)).tolist() == [True, False, True]


def test_find_duplicates_drops_later_copies_in_corpus_order(tmp_path):
    shards = [
        raw_shard(tmp_path / "raw/a/shard-00000.arrow", ["one", "two", "one"]),
        raw_shard(tmp_path / "raw/a/shard-00001.arrow", ["three", "two"]),
        raw_shard(tmp_path / "raw/b/shard-00000.arrow", ["three", "four", "one"]),
    ]
    out = tmp_path / "duplicates.arrow"
    assert find_duplicates(shards, str(out)) == {"exact": 4, "near": 0}
    rows = {key: value.tolist() for key, value in duplicate_rows(str(out)).items()}
    assert rows == {"a/shard-00000": [2], "a/shard-00001": [1], "b/shard-00000": [0, 2]}
    assert find_duplicates(shards, str(out), enabled=False) == {"exact": 0, "near": 0}
    assert duplicate_rows(str(out)) == {}


def test_exact_duplicates_are_sampled_beside_the_document_they_repeat(tmp_path, monkeypatch):
    shards = [
        raw_shard(tmp_path / "raw/a/shard-00000.arrow", ["one", "two", "one"]),
        raw_shard(tmp_path / "raw/a/shard-00001.arrow", ["three", "two"]),
        raw_shard(tmp_path / "raw/b/shard-00000.arrow", ["three", "four", "one"]),
    ]
    monkeypatch.setattr(dedup, "SAMPLES", 3)  # the first 3 of the 4 in corpus order
    samples = tmp_path / "samples.json"
    find_duplicates(shards, str(tmp_path / "duplicates.arrow"), samples=str(samples))
    shown = json.loads(samples.read_text())
    assert shown["near"] == []
    assert [(pair["removed"]["shard"], pair["removed"]["row"], pair["repeats"]["shard"], pair["repeats"]["row"],
             pair["removed"]["text"], pair["repeats"]["text"]) for pair in shown["exact"]] == [
        ("a/shard-00000", 2, "a/shard-00000", 0, "one", "one"),
        ("a/shard-00001", 1, "a/shard-00000", 1, "two", "two"),
        ("b/shard-00000", 0, "a/shard-00001", 0, "three", "three"),
    ]  # fmt: skip


def test_a_source_the_filters_empty_is_refused_with_what_removed_it(tmp_path):
    shards = [raw_shard(tmp_path / f"filtered/{source}/shard-00000.arrow", texts) for source, texts in
              (("a", []), ("b", ["kept"]))]  # fmt: skip
    filtered = {"language": {"docs": 3, "chars": 90}, "c4": {"docs": 1, "chars": 40}}
    stats = {"docs_read": 5, "docs_null_or_empty": 1, "docs_too_short": 0, "filtered": filtered}
    (tmp_path / "filtered/a/shard-00000.json").write_text(json.dumps(stats))
    with pytest.raises(
        DataError,
        match=re.escape(
            "source 'a' has no documents left after cleaning and filtering: 5 read, 1 null or empty, 0 too short "
            f"(clean.min_chars), 3 by language, 1 by c4 (see {tmp_path / 'filtered/a'}/*.json)"
        ),
    ):
        find_duplicates(shards, str(tmp_path / "duplicates.arrow"))
    assert not (tmp_path / "duplicates.arrow").exists()
