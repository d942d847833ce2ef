"""The manifest as a declared contract: built from the stats files of the jobs, read by one module as one typed view
that holds every field of the file, with its format version, packing, special ids and provenance; and the data half's
outputs are the ones made before the package layout (tests/golden/tiny-data.json, written by the code of commit
003f920 on the same tiny data)."""

import hashlib
import json
import re
import shutil
from dataclasses import replace
from importlib.metadata import version

import pytest
from helpers import REPO, build_tiny_data, spelled_elsewhere

from snakebert.cards.dataset import IN_REPOSITORY
from snakebert.data import manifest_view
from snakebert.data.manifest import (
    FORMAT_VERSION,
    LIBRARIES,
    build_manifest,
    data_digest,
    installed_version,
    json_digest,
    read_manifest,
    validation_ranges,
    write_manifest,
)
from snakebert.data.manifest_view import MANIFEST_FILE, Commit, PackedShard, ValidationRange
from snakebert.errors import DataError
from snakebert.files.json_views import as_json
from snakebert.training.block_dataset import BlockDataset

GOLDEN = json.loads((REPO / "tests/golden/tiny-data.json").read_text())
NEW_FIELDS = {"format_version", "packing", "packings", "special_ids", "provenance"}


def test_data_outputs_are_byte_identical_to_before_and_the_manifest_differs_only_in_its_new_fields(tiny_data):
    results = tiny_data.root / "results"
    for name, digest in GOLDEN["files"].items():
        assert hashlib.sha256((results / name).read_bytes()).hexdigest() == digest, name
    manifest = json.loads(tiny_data.manifest.read_text())
    assert set(manifest) - set(GOLDEN["manifest"]) == NEW_FIELDS
    newer = [manifest["totals"], *manifest["shards"]]  # counted since format 4: none here, without those filters
    for key, none in (("near_duplicates", 0), ("filtered", {}), ("languages_removed", {})):
        assert [counts.pop(key) for counts in newer] == [none] * len(newer), key
    assert {key: value for key, value in manifest.items() if key not in NEW_FIELDS} == GOLDEN["manifest"]


def test_the_manifest_declares_its_format_packing_special_ids_and_provenance(tiny_data):
    manifest = read_manifest(str(tiny_data.manifest))
    assert manifest.format_version == FORMAT_VERSION
    assert as_json(manifest.packing) == {"documents": "whole", "order": "corpus", "remainder": "dropped"}
    vocabulary = json.loads((tiny_data.tokenizer / "tokenizer.json").read_text())["model"]["vocab"]
    assert manifest.special_ids == {
        "pad_token": vocabulary["[PAD]"], "unk_token": vocabulary["[UNK]"], "cls_token": vocabulary["[CLS]"],
        "sep_token": vocabulary["[SEP]"], "mask_token": vocabulary["[MASK]"],
    }  # fmt: skip
    provenance = manifest.provenance
    assert provenance.libraries == {name: version(name) for name in LIBRARIES}
    assert installed_version("a-distribution-nobody-installed") is None  # recorded as null, not a failure
    assert provenance.config_digest == "tiny"
    assert provenance.commit is None or len(provenance.commit.id) == 40


def test_the_view_holds_every_field_of_the_file_and_writes_back_the_same_bytes(tiny_data, tmp_path):
    text = tiny_data.manifest.read_text()
    written = json.loads(text)
    manifest = read_manifest(str(tiny_data.manifest))
    assert json.dumps(as_json(manifest)) == json.dumps(written)  # every key, in the file's order, every value
    write_manifest(as_json(manifest), str(tmp_path / "manifest.json"))
    assert (tmp_path / "manifest.json").read_text() == text
    # the checkpoints' data fingerprint is the digest of the file's JSON, as before the view
    assert data_digest(manifest) == json_digest({key: value for key, value in written.items() if key != "provenance"})
    (packing,) = manifest.packings  # its parts are views too, and the packing of a block size is found
    assert isinstance(manifest.split.validation[0], ValidationRange) and isinstance(packing.shards[0], PackedShard)
    assert manifest.provenance.commit is None or isinstance(manifest.provenance.commit, Commit)
    assert manifest.packing_shards(packing.block_size) is packing.shards
    assert manifest.packing_shards(manifest.block_size) is manifest.shards
    with pytest.raises(DataError, match="the manifest has no packing of 5-token blocks; rerun the workflow"):
        manifest.packing_shards(5)


def copy_results(tiny_data, tmp_path):
    shutil.copytree(tiny_data.root / "results", tmp_path / "results")
    return tmp_path / "results"


def test_a_manifest_of_another_format_is_refused_with_what_to_do(tiny_data, tmp_path):
    results = copy_results(tiny_data, tmp_path)
    path = results / "dataset/manifest.json"
    path.write_text(json.dumps(GOLDEN["manifest"]))  # format 1: no format_version
    with pytest.raises(
        DataError, match=f"manifest format 1, this code reads format {FORMAT_VERSION}; delete it and rerun"
    ):
        read_manifest(str(path))
    path.write_text("[]")
    with pytest.raises(
        DataError, match=f"manifest format unknown, this code reads format {FORMAT_VERSION}; delete it and rerun"
    ):
        read_manifest(str(path))
    path.write_text(json.dumps({**json.loads(tiny_data.manifest.read_text()), "split": []}))
    with pytest.raises(
        DataError, match=r"manifest.json: not a manifest of this workflow \(TypeError\(.*rerun to rebuild"
    ):
        read_manifest(str(path))


@pytest.mark.parametrize(
    ("edit", "key", "value"),
    [
        (lambda manifest: manifest.update(block_size=16.0), "block_size", "16.0"),
        (lambda manifest: manifest["shards"][0].update(blocks=float(manifest["shards"][0]["blocks"])), "blocks", ""),
        (lambda manifest: manifest["split"]["validation"][0].update(start=True), "start", "True"),
        (lambda manifest: manifest["packings"][0].update(block_size="8"), "block_size", "'8'"),
    ],
    ids=["block_size", "shard-blocks", "validation-start", "packing-block_size"],
)
def test_a_count_or_size_of_the_manifest_that_is_not_an_integer_is_refused_naming_its_key(tiny_data, tmp_path, edit,
                                                                                          key, value):  # fmt: skip
    """A hand edit to `16.0` would pass the count checks (16.0 == 16) and fail later as a slice index, in a raw
    TypeError after the data half."""
    manifest = json.loads(tiny_data.manifest.read_text())
    edit(manifest)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    with pytest.raises(DataError, match=rf"not a manifest of this workflow .*its '{key}' is {value}.*, not an integer"):
        read_manifest(str(path))


def test_readers_take_the_column_and_dtype_from_the_manifest(tiny_data):
    manifest, folder = read_manifest(str(tiny_data.manifest)), tiny_data.manifest.parent
    with pytest.raises(DataError, match="shard-00000.arrow: token ids of type uint16, the manifest says uint32"):
        BlockDataset(replace(manifest, dtype="uint32"), folder, "train")
    with pytest.raises(KeyError, match="ids"):
        BlockDataset(replace(manifest, column="ids"), folder, "train")


def test_the_data_digest_ignores_provenance_only(tiny_data):
    manifest = read_manifest(str(tiny_data.manifest))
    rebuilt = replace(manifest, provenance=replace(manifest.provenance, commit=None))
    assert data_digest(rebuilt) == data_digest(manifest)
    changed = replace(manifest, shards=(replace(manifest.shards[0], sha256="0" * 64), *manifest.shards[1:]))
    assert data_digest(changed) != data_digest(manifest)


def test_stats_of_different_runs_are_refused_naming_both_files(tiny_data, tmp_path):
    results = copy_results(tiny_data, tmp_path)
    stats = {stage: [str(results / stage / "texts" / f"shard-0000{index}.json") for index in (0, 1)]
             for stage in ("raw", "tokens", "blocks")}  # fmt: skip
    packed = json.loads((results / "blocks/texts/shard-00000.json").read_text())
    (results / "blocks/texts/shard-00000.json").write_text(json.dumps({**packed, "tokens": packed["tokens"] + 1}))
    shards = [
        (str(results / f"raw/texts/shard-0000{index}.arrow"), stats["raw"][index], stats["tokens"][index],
         str(results / f"blocks/texts/shard-0000{index}.arrow"), stats["blocks"][index])
        for index in (0, 1)
    ]  # fmt: skip
    data = {"block_size": 16, "validation_fraction": 0.1, "seed": 34}
    with pytest.raises(
        DataError,
        match=r"blocks/texts/shard-00000.json: packed \d+ tokens, but \S+tokens/texts/shard-00000.json counts",
    ):
        build_manifest(shards, str(results / "tokenizer"), data, "x", str(results / "dataset/manifest.json"))


def test_validation_ranges_are_seeded_contiguous_and_inside_their_shard():
    ranges = validation_ranges([100, 7, 1000], 0.1, seed=34)
    assert [(run["shard"], run["stop"] - run["start"]) for run in ranges] == [(0, 10), (1, 1), (2, 100)]
    assert all(run["start"] >= 0 and run["stop"] <= count for run, count in zip(ranges, [100, 7, 1000], strict=True))
    assert validation_ranges([100, 7, 1000], 0.1, seed=34) == ranges
    assert validation_ranges([100, 7, 1000], 0.1, seed=35) != ranges
    # round(0.3) = 0 in every shard: one block of the largest shard, whenever there are two blocks or more
    assert validation_ranges([3], 0.1, seed=34) == [{"shard": 0, "start": 0, "stop": 1}]
    assert [run["shard"] for run in validation_ranges([2, 4, 4], 0.01, seed=34)] == [1]
    assert validation_ranges([1], 0.5, seed=34) == validation_ranges([1, 0], 0.1, seed=34) == []


def only_special_tokens(folder):
    """Cut the tokenizer's vocabulary down to its special tokens: every word of the corpus becomes [UNK]."""
    spec = json.loads((folder / "tokenizer.json").read_text())
    specials = [token for token in spec["model"]["vocab"] if token.startswith("[") and token.endswith("]")]
    spec["model"]["vocab"] = {token: index for index, token in enumerate(specials)}
    spec["added_tokens"] = [{**token, "id": specials.index(token["content"])} for token in spec["added_tokens"]]
    (folder / "tokenizer.json").write_text(json.dumps(spec))


def test_a_corpus_the_tokenizer_mostly_cannot_read_is_refused_before_any_block_is_trained_on(tmp_path):
    """A tokenizer of another language, or one without its vocabulary, makes a corpus of [UNK]: the token stats count
    them, and the manifest refuses a corpus of which more than half is unknown, naming the tokenizer."""
    refused = r"tokenizer: [\d,]+ of the corpus's [\d,]+ tokens \(\d+%\) are unknown to the tokenizer \(\[UNK\]\)"
    with pytest.raises(DataError, match=refused + ": it reads less than half of the text"):
        build_tiny_data(tmp_path, edit_tokenizer=only_special_tokens)
    assert json.loads((tmp_path / "results/tokens/texts/shard-00000.json").read_text())["unknown_tokens"] > 0
    assert not (tmp_path / "results/dataset/manifest.json").exists()


def test_the_token_stats_count_the_unknown_tokens(tiny_data):
    stats = json.loads((tiny_data.root / "results/tokens/texts/shard-00000.json").read_text())
    assert stats["unknown_tokens"] == 0 and stats["tokens"] > 0


def test_no_other_module_spells_the_manifests_path():
    """The rules, hub.py and the data set card (its path in the Hub repository) take the path from
    manifest_view.MANIFEST_FILE. A docstring or a help text that mentions the path in a sentence is no hit: the grep
    finds a path quoted whole, as code spells it."""
    assert spelled_elsewhere(manifest_view, [re.escape(MANIFEST_FILE), re.escape(IN_REPOSITORY)]) == {}
