"""`model.architecture: modernbert` through the workflow: trained, saved as a ModernBertForMaskedLM folder that loads
offline into fill-mask, evaluated, probed and fine-tuned like BERT; resumed bit-identically. Its refusal on the hpu
backend is checked in the unit tier (tests/unit/test_launch_plan.py)."""

import json
import math
import shutil

import pytest
from helpers import snakemake, training_config
from shared_builds import copy_build
from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline

TARGETS = ("results/model", "results/eval/metrics.json", "results/eval/probes.json")
FINETUNED = "results/finetune/party/metrics.json"


def modern_config(workdir, **pretrain):
    return training_config(workdir, model={"architecture": "modernbert"}, pretrain=pretrain)


@pytest.fixture(scope="module")
def modern(data_half, tmp_path_factory):
    workdir = copy_build(data_half, tmp_path_factory.mktemp("modernbert") / "work")
    snakemake(workdir, *TARGETS, FINETUNED, config=modern_config(workdir))
    return workdir


def test_the_model_folder_is_a_modernbert_masked_lm_that_fills_masks_offline(modern, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = modern / "results/model"
    config = json.loads((folder / "config.json").read_text())
    assert config["architectures"] == ["ModernBertForMaskedLM"] and config["model_type"] == "modernbert"
    assert config["hidden_size"] == 32 and config["num_hidden_layers"] == 1
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert tokenizer("a b").keys() == {"input_ids", "attention_mask"}  # no token type ids: ModernBERT takes none
    fill = pipeline("fill-mask", model=AutoModelForMaskedLM.from_pretrained(folder), tokenizer=tokenizer)
    assert len(fill("the library opens at [MASK] .")) == 5


def test_it_learns_and_is_evaluated_probed_and_fine_tuned_as_bert_is(modern):
    training = json.loads((modern / "results/model/training_metrics.json").read_text())
    assert training["steps"] == 60 and training["final_loss"] < training["initial_loss"] - 0.5
    held_out = json.loads((modern / "results/eval/metrics.json").read_text())
    assert held_out["mlm_loss"] < math.log(1 / held_out["chance_accuracy"]) - 0.5
    probes = json.loads((modern / "results/eval/probes.json").read_text())
    assert len(probes["probes"]) == 2 and all(len(probe["predictions"]) == 5 for probe in probes["probes"])
    finetuned = json.loads((modern / FINETUNED).read_text())
    assert {model["kind"] for model in finetuned["models"].values()} >= {"pretrained", "random_init"}


def test_a_resume_from_a_checkpoint_ends_bit_identical(modern):
    uninterrupted = (modern / "results/model/model.safetensors").read_bytes()
    (run,) = [path.parent for path in modern.glob("checkpoints/pretrain/*/fingerprint.json")]
    shutil.rmtree(run / "checkpoint-60")  # as if killed after the checkpoint at step 40
    shutil.rmtree(modern / "results/model")
    snakemake(modern, "results/model", config=modern_config(modern))
    metrics = json.loads((modern / "results/model/training_metrics.json").read_text())
    assert metrics["resumed_from"].endswith("checkpoint-40")
    assert (modern / "results/model/model.safetensors").read_bytes() == uninterrupted
