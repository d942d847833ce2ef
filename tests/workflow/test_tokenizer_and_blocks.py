"""The trained tokenizer loads offline through AutoTokenizer; blocks hold exactly the documents' token ids."""

import hashlib
import json
import shutil
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
import pytest
from helpers import planned_jobs, snakemake, two_source_config
from tokenizers import Tokenizer
from transformers import AutoTokenizer, BertTokenizerFast

from snakebert.data.corpus import shard_texts
from snakebert.data.dedup import duplicate_rows, shard_key
from snakebert.data.tokenizer import bert_style, initial_symbols, train_deterministic, train_tokenizer, wordpiece
from snakebert.errors import DataError


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The data half of the two-source test corpus, built once by a real snakemake run."""
    workdir = tmp_path_factory.mktemp("built")
    config = two_source_config(workdir)
    config["sources"][1]["paths"].append("corpus/copy.jsonl")
    (workdir / "corpus").mkdir(exist_ok=True)
    (workdir / "corpus/copy.jsonl").write_text(json.dumps({"text": (workdir / "corpus/texts/doc-00.txt").read_text()}))
    snakemake(workdir, "results/dataset/manifest.json", config=config)
    return workdir


def tokenizer_inputs(built) -> tuple[list[str], list[str], str]:
    """The text shards, their stats files and the duplicates file of the built data set: train_tokenizer's inputs."""
    raw = sorted(str(path) for path in (built / "results/raw").glob("*/*.arrow"))
    return raw, [str(Path(path).with_suffix(".json")) for path in raw], str(built / "results/dedup/duplicates.arrow")


def read_stream(path) -> pa.Table:
    with pa.memory_map(str(path)) as source:
        return pa.ipc.open_stream(source).read_all()


def test_tokenizer_loads_offline_with_bert_special_tokens(built, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    tokenizer = AutoTokenizer.from_pretrained(built / "results/tokenizer")
    assert tokenizer.is_fast
    assert tokenizer.convert_ids_to_tokens(list(range(5))) == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert tokenizer.model_max_length == 512
    assert 100 < len(tokenizer) <= 200
    ids = tokenizer("The Library opens at NINE.")["input_ids"]
    assert ids[0] == tokenizer.cls_token_id and ids[-1] == tokenizer.sep_token_id
    assert tokenizer.decode(ids, skip_special_tokens=True) == "the library opens at nine."
    assert tokenizer("a", "b")["token_type_ids"] == [0, 0, 0, 1, 1]


def test_blocks_are_the_documents_token_ids_concatenated_and_cut(built):
    tokenizer = AutoTokenizer.from_pretrained(built / "results/tokenizer")
    manifest = json.loads((built / "results/dataset/manifest.json").read_text())
    skipped = duplicate_rows(str(built / "results/dedup/duplicates.arrow"))
    block_size = manifest["block_size"]
    assert sum(len(rows) for rows in skipped.values()) == 1
    for shard in manifest["shards"]:
        raw = str(built / "results/dataset" / shard["text_shard"])
        texts = [text for batch in shard_texts(raw, skipped.get(shard_key(raw))) for text in batch.to_pylist()]
        expected = [tokenizer(text)["input_ids"] for text in texts]
        stored = read_stream(built / "results/dataset" / shard["text_shard"].replace("/raw/", "/tokens/")).column(
            "input_ids"
        )
        assert stored.to_pylist() == expected
        flat = np.array([token for ids in expected for token in ids], dtype=np.uint16)
        blocks = read_stream(built / "results/dataset" / shard["path"]).column("input_ids")
        assert blocks.type == pa.list_(pa.uint16(), block_size)
        cut = len(flat) // block_size * block_size
        assert np.array_equal(blocks.combine_chunks().flatten().to_numpy(), flat[:cut])
        assert (shard["docs"], shard["tokens"], shard["blocks"]) == (len(texts), len(flat), cut // block_size)
        assert shard["dropped_tokens"] == len(flat) - cut < block_size


def test_blocks_load_with_datasets_from_file(built):
    manifest = json.loads((built / "results/dataset/manifest.json").read_text())
    shard = manifest["shards"][0]
    dataset = datasets.Dataset.from_file(str(built / "results/dataset" / shard["path"]))
    assert len(dataset) == shard["blocks"]
    assert dataset.features["input_ids"] == datasets.List(datasets.Value("uint16"), length=manifest["block_size"])
    assert len(dataset[0]["input_ids"]) == manifest["block_size"]


def test_manifest_totals_checksums_and_validation_split(built):
    manifest = json.loads((built / "results/dataset/manifest.json").read_text())
    shards = manifest["shards"]
    assert manifest["dtype"] == "uint16" and manifest["shuffle_seed"] == 34
    assert manifest["vocab_size"] == len(AutoTokenizer.from_pretrained(built / "results/tokenizer"))
    for key in ("docs", "tokens", "blocks", "dropped_tokens", "duplicates", "docs_read"):
        assert manifest["totals"][key] == sum(shard[key] for shard in shards)
    for shard in shards:
        assert shard["sha256"] == hashlib.sha256((built / "results/dataset" / shard["path"]).read_bytes()).hexdigest()
    split = manifest["split"]
    assert split["validation_blocks"] + split["train_blocks"] == manifest["totals"]["blocks"]
    assert split["validation_blocks"] > 0
    for run in split["validation"]:
        assert 0 <= run["start"] < run["stop"] <= shards[run["shard"]]["blocks"]


def test_tokenizer_files_are_those_save_pretrained_writes(built, tmp_path):
    saved = built / "results/tokenizer"
    config = json.loads((saved / "tokenizer_config.json").read_text())
    style = {key: config[key] for key in config if key not in ("backend", "tokenizer_class")}
    reference = BertTokenizerFast(tokenizer_object=Tokenizer.from_file(str(saved / "tokenizer.json")), **style)
    reference.save_pretrained(tmp_path / "reference")
    written = sorted(path.name for path in saved.iterdir() if path.name != ".snakemake_timestamp")
    assert written == sorted(path.name for path in (tmp_path / "reference").iterdir())
    for name in written:
        assert (saved / name).read_bytes() == (tmp_path / "reference" / name).read_bytes(), name


def test_every_character_that_can_continue_a_word_gets_its_continuation():
    texts = ["Zeal, then: the quiet Ω and an ümlaut (accents stripped).", "a tab\tand a zero-width\u200bjoin"]
    style = bert_style({"lowercase": True})
    symbols = initial_symbols(wordpiece(style), lambda: iter([texts]))
    assert symbols == sorted(symbols)
    assert {"z", "##z", "ω", "##ω", "u", "##u", ",", ":", ".", "-", "("} <= set(symbols)
    assert not {"##,", "##:", "##.", "##-", " ", "## ", "\t", "Z", "ü", "\u200b"} & set(symbols)
    tokenizer = train_deterministic(style, lambda: iter([texts]), 60, 1)
    assert "[UNK]" not in tokenizer.encode("bz aω", add_special_tokens=False).tokens


def test_base_tokenizer_lends_its_normaliser_and_special_tokens(built, tmp_path):
    raw, stats, duplicates = tokenizer_inputs(built)
    settings = {"vocab_size": 150, "min_frequency": 1, "lowercase": False, "sample_chars": 10**6}
    settings["model_max_length"] = 128
    train_tokenizer(raw, stats, duplicates, settings, str(tmp_path / "cased"))
    based = {**settings, "lowercase": True, "base": str(tmp_path / "cased")}
    retrained = train_tokenizer(raw, stats, duplicates, based, str(tmp_path / "from-base"))
    loaded = AutoTokenizer.from_pretrained(tmp_path / "from-base")
    assert not retrained["do_lower_case"]
    assert loaded.decode(loaded("The Library")["input_ids"], skip_special_tokens=True) == "The Library"


def test_a_sample_too_small_for_the_vocabulary_is_refused_naming_both_settings(tmp_path):
    config = two_source_config(tmp_path)  # the whole corpus fills the tests' 200 tokens (the `built` data set)
    config["tokenizer"] = {**config["tokenizer"], "sample_chars": 300}
    done = snakemake(tmp_path, "results/tokenizer", config=config, check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "of the 200 asked (tokenizer.vocab_size)" in output, output
    assert "tokenizer.sample_chars = 300 characters is too small" in output, output
    assert not (tmp_path / "results/tokenizer").exists()


def test_a_base_without_a_special_token_is_refused_naming_the_role(built, tmp_path):
    base = tmp_path / "base"
    shutil.copytree(built / "results/tokenizer", base)
    config = json.loads((base / "tokenizer_config.json").read_text())
    (base / "tokenizer_config.json").write_text(json.dumps({**config, "mask_token": None}))
    with pytest.raises(DataError, match=r"has no mask_token: BERT needs each of pad_token, unk_token"):
        bert_style({"base": str(base)})


def test_an_edit_of_the_base_folder_retrains_the_tokenizer(built, tmp_path):
    shutil.copytree(built / "results/tokenizer", tmp_path / "base")
    config = two_source_config(tmp_path)
    config["tokenizer"] = {**config["tokenizer"], "base": "base"}
    snakemake(tmp_path, "results/tokenizer", config=config)
    assert planned_jobs(tmp_path, config, "results/tokenizer") == {}
    settings = tmp_path / "base/tokenizer_config.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "do_lower_case": False}))
    assert planned_jobs(tmp_path, config, "results/tokenizer").get("train_tokenizer") == 1


def test_a_whole_corpus_too_small_for_the_vocabulary_is_refused_below_a_tenth(built, tmp_path):
    raw, stats, duplicates = tokenizer_inputs(built)
    settings = {"vocab_size": 65535, "min_frequency": 1, "lowercase": True, "sample_chars": 10**9}
    settings["model_max_length"] = 128
    with pytest.raises(DataError, match="of the 65535 asked .* from the whole corpus: it is too small") as refused:
        train_tokenizer(raw, stats, duplicates, settings, str(tmp_path / "huge"))
    assert not (tmp_path / "huge").exists()
    learned = int(str(refused.value).split("learned ")[1].split(" ")[0])
    train_tokenizer(raw, stats, duplicates, {**settings, "vocab_size": 3 * learned}, str(tmp_path / "fills-a-third"))
    assert (tmp_path / "fills-a-third" / "tokenizer.json").is_file()
