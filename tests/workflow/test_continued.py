"""A run continued from a base (`model.init_from`), on a copy of the trained tiny run whose own model is the base: the
tokenizer kept as the base's (not trained), the data half's ingest and deduplication not rerun, the weights continued
from the base's, and the base as it is fine-tuned beside the continued model, with "did adaptation pay?" answered."""

import json
import shutil
from collections import Counter

import pytest
import torch
import yaml
from helpers import planned_jobs, snakemake
from shared_builds import copy_build
from transformers import AutoModelForMaskedLM, AutoTokenizer

from snakebert.config_defaults import schema_defaults
from snakebert.data.clean import clean_batch
from snakebert.files.arrow_streams import read_table
from snakebert.finetune.interval import NO_WIDTH, NONE_SCORED, NOT_SHOWN

CONTINUE = {"init_from": "base", **{key: None for key in schema_defaults("model") if key != "init_from"}}
TEXT = "The Senate and HOUSE of representatives met in 1853, an unheard-of session."


def continued_config(workdir, **model) -> dict:
    config = yaml.safe_load((workdir / "trained-config.yaml").read_text())
    config["model"] = {**CONTINUE, **model}
    config["tokenizer"] = schema_defaults("tokenizer")  # a continued run trains no tokenizer: every key at its default
    config["finetune"] = {**config["finetune"], "seeds": 1}
    return config


@pytest.fixture(scope="module")
def continued(trained, tmp_path_factory):
    workdir = copy_build(trained, tmp_path_factory.mktemp("continued") / "work")
    (workdir / "trained-config.yaml").write_text((workdir / "test-config.yaml").read_text())
    shutil.copytree(workdir / "results/model", workdir / "base")  # with its runs/ history: a model folder as saved
    config = continued_config(workdir)
    planned = planned_jobs(workdir, config)
    snakemake(workdir, config=config)
    return workdir, planned


def test_the_data_half_keeps_its_ingest_and_takes_the_bases_tokenizer(continued):
    workdir, planned = continued
    assert "ingest_shard" not in planned and "find_duplicates" not in planned and "train_tokenizer" not in planned
    assert planned["keep_tokenizer"] == 1 and planned["pretrain"] == 1 and planned["tokenize_shard"] >= 1
    ours, base = (AutoTokenizer.from_pretrained(workdir / folder) for folder in ("results/tokenizer", "base"))
    assert ours(TEXT)["input_ids"] == base(TEXT)["input_ids"] and ours.get_vocab() == base.get_vocab()


def test_the_weights_continue_from_the_bases(continued):
    workdir, _ = continued
    model, base = (AutoModelForMaskedLM.from_pretrained(workdir / folder) for folder in ("results/model", "base"))
    assert model.config.hidden_size == base.config.hidden_size == 32
    trained, start = model.state_dict(), base.state_dict()
    assert trained.keys() == start.keys() and any(not torch.equal(trained[key], start[key]) for key in trained)
    ours, theirs = (
        json.loads((workdir / f"{folder}/training_metrics.json").read_text()) for folder in ("results/model", "base")
    )
    assert ours["init_from"] == "base" and theirs["init_from"] is None
    assert ours["initial_loss"] < theirs["initial_loss"]  # the first step starts where the base's run ended, not afresh
    card = (workdir / "results/cards/model/README.md").read_text()
    assert "masked language model (`BertForMaskedLM`) continued from `base` by snakebert" in card
    assert "the base's own vocabulary of" in card and "base_model" not in card  # a folder: no Hub id to link


def test_the_base_as_it_is_is_fine_tuned_beside_and_adaptation_answered(continued):
    workdir, planned = continued
    assert planned["finetune"] == 3  # the continued model, random initialisation and the base, one seed each
    results = json.loads((workdir / "results/finetune/party/metrics.json").read_text())
    assert list(results["models"])[:3] == ["pretrained", "random", "base"]
    assert results["models"]["base"]["model"] == "base" and results["models"]["base"]["kind"] == "reference"
    gain = results["adaptation_gain"]
    assert gain["verdict"] in {"yes", "no", NOT_SHOWN, NO_WIDTH, NONE_SCORED} and gain["runs"] == 1
    assert results["linear_probe"]["adaptation_gain"]["runs"] == 1
    summary = (workdir / "results/report/summary.html").read_text()
    assert "did adaptation pay? (fine-tuned)" in summary and "did pretraining pay? (fine-tuned)" in summary


def test_a_model_key_that_disagrees_with_the_base_is_refused_when_the_workflow_is_parsed(continued):
    workdir, _ = continued
    done = snakemake(workdir, "-n", config=continued_config(workdir, hidden_size=64), check=False)
    assert done.returncode != 0
    assert "config model.hidden_size is 64, but the model.init_from base has 32" in done.stdout + done.stderr


def test_a_task_source_feeds_the_tasks_train_text_and_nothing_else_into_pretraining(continued):
    """Task-adaptive pretraining inside the DAG: the `task` source's shard is made from the task's prepared train
    split (the prepare_task output already made is reused), and the data half after ingest takes it in."""
    workdir, _ = continued
    config = continued_config(workdir)
    config["sources"] = [*config["sources"], {"name": "party-text", "type": "task", "task": "party"}]
    planned = planned_jobs(workdir, config, "results/dataset/manifest.json")
    assert planned["ingest_shard"] == 1 and planned["find_duplicates"] == 1 and "prepare_task" not in planned
    snakemake(workdir, "results/raw/party-text/shard-00000.arrow", config=config)
    ingested = read_table(str(workdir / "results/raw/party-text/shard-00000.arrow")).column("text").to_pylist()
    train = read_table(str(workdir / "results/finetune/party/data/train.arrow")).column("text")
    cleaned = clean_batch(train.combine_chunks(), {**schema_defaults("clean"), **config["clean"]}, Counter())
    assert ingested == cleaned.to_pylist() and len(train) > 100  # the train texts as every source's are cleaned


def test_added_words_extend_the_kept_tokenizer_from_the_corpus_already_ingested(continued):
    """`tokenizer.add_tokens` through the workflow: keep_tokenizer reads the text shards (no ingest rerun) and appends
    the words after the base's ids."""
    workdir, _ = continued
    config = continued_config(workdir)
    config["tokenizer"]["add_tokens"] = 6
    planned = planned_jobs(workdir, config, "results/tokenizer")
    assert planned == {"keep_tokenizer": 1}
    snakemake(workdir, "results/tokenizer", config=config)
    ours, base = (AutoTokenizer.from_pretrained(workdir / folder) for folder in ("results/tokenizer", "base"))
    assert len(ours) == len(base) + 6 and all(
        ours.get_vocab()[token] == index for token, index in base.get_vocab().items()
    )
