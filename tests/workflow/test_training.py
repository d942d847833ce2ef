"""Pretraining and evaluation through the workflow: loss falls, the model dir works offline, reruns resume."""

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys

import pytest
from helpers import CORES, REPO, TINY_TRAINING, interrupting_env, planned_jobs, snakemake, training_config, write_config
from shared_builds import copy_build
from tensorboard_history import events, scalars
from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline

from snakebert.files.json_views import as_json
from snakebert.training.checkpoints import COMPLETE_FILE
from snakebert.training.evaluate import evaluate


def test_training_lowers_the_loss_and_reports_its_metrics(trained):
    metrics = json.loads((trained / "results/model/training_metrics.json").read_text())
    assert metrics["backend"] == "cpu" and metrics["steps"] == 60 and metrics["global_batch_size"] == 8
    assert metrics["final_loss"] < metrics["initial_loss"] - 0.5
    assert metrics["train_tokens_per_second"] == pytest.approx(metrics["train_samples_per_second"] * 16)
    history = json.loads((trained / "results/model/log_history.json").read_text())
    assert [entry["step"] for entry in history if "loss" in entry][:3] == [1, 5, 10]
    assert any("eval_loss" in entry for entry in history)


def test_model_directory_loads_offline_into_fill_mask(trained, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = trained / "results/model"
    assert json.loads((folder / "config.json").read_text())["architectures"] == ["BertForMaskedLM"]
    model = AutoModelForMaskedLM.from_pretrained(folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    fill = pipeline("fill-mask", model=model, tokenizer=tokenizer)
    predictions = fill("the library opens at [MASK].")
    assert len(predictions) == 5 and all(prediction["token_str"] for prediction in predictions)


def test_evaluation_beats_chance_and_is_repeatable(trained):
    metrics = json.loads((trained / "results/eval/metrics.json").read_text())
    assert metrics["masked_tokens"] > 0
    assert metrics["perplexity"] == pytest.approx(math.exp(metrics["mlm_loss"]))
    # a handful of masked tokens: the loss, not the accuracy, is what can show learning at this size
    assert metrics["mlm_loss"] < math.log(1 / metrics["chance_accuracy"]) - 0.5
    assert 0 <= metrics["masked_token_accuracy"] <= 1
    settings = {"seed": 1234, **{key: TINY_TRAINING["evaluate"][key] for key in ("batch_size", "max_blocks")}}
    settings |= {"mlm_probability": 0.15, "max_predictions": None}
    again = evaluate(str(trained / "results/model"), str(trained / "results/dataset/manifest.json"), settings)
    assert as_json(again) == metrics


def test_training_settings_rerun_no_data_rule(trained_copy):
    changed = training_config(trained_copy, pretrain={"learning_rate": 0.004})
    report = {"plot_training": 1, "report_summary": 1, "model_card": 1}
    finetuning = {
        "finetune": 4,
        "choose_rate": 2,
        "linear_probe": 2,
        "summarize_finetune": 1,
        "plot_downstream": 1,
    }  # 2 models, 2 seeds
    assert planned_jobs(trained_copy, changed) == {
        "all": 1, "evaluate": 1, "fill_mask_probes": 1, "pretrain": 1, **report, **finetuning
    }  # fmt: skip
    changed = training_config(trained_copy, evaluate={"seed": 7})
    assert planned_jobs(trained_copy, changed) == {"all": 1, "evaluate": 1, **report}
    assert planned_jobs(trained_copy, training_config(trained_copy, tracking={"trackers": []})) == {}


SAVED = ("model.safetensors", "training_metrics.json", "log_history.json")


def test_a_neutral_rerun_of_a_finished_run_saves_the_run_as_it_was(trained_copy):
    """A changed neutral setting, or --forcerun, reruns pretrain once the run is finished: it trains nothing and
    saves the model folder the run kept, byte for byte (no segment of zero steps, no throughput of a job that trained
    nothing); a run that kept none saves its last checkpoint's weights with the run's segments and no timings."""
    model = trained_copy / "results/model"
    before = {name: (model / name).read_bytes() for name in SAVED}
    snakemake(trained_copy, "results/model", config=training_config(trained_copy, pretrain={"logging_steps": 7}))
    assert "the run is complete: " in (trained_copy / "logs/pretrain.log").read_text()
    assert {name: (model / name).read_bytes() for name in SAVED} == before

    [kept] = trained_copy.glob("checkpoints/pretrain/*/finished")
    shutil.rmtree(kept)
    snakemake(trained_copy, "results/model", "--forcerun", "pretrain", config=training_config(trained_copy))
    assert (
        "the run kept no model folder, so its timings are unknown" in (trained_copy / "logs/pretrain.log").read_text()
    )
    assert (model / "model.safetensors").read_bytes() == before["model.safetensors"]
    metrics, earlier = (json.loads(text) for text in ((model / SAVED[1]).read_text(), before[SAVED[1]]))
    assert metrics["segments"] == earlier["segments"] == [{"first_step": 1, "last_step": 60}]
    assert metrics["train_runtime"] is None and metrics["train_samples_per_second"] is None
    assert [phase["trained_here"] for phase in metrics["phases"]] == [False]
    assert metrics["final_loss"] == earlier["final_loss"]
    assert kept.is_dir(), "the run did not keep the model folder it saved again"


RESUMABLE = {"max_steps": 400, "save_steps": 50, "logging_steps": 25, "eval_steps": 100}
TIMINGS = {"train_runtime", "train_samples_per_second", "train_steps_per_second", "eval_runtime"}
TIMINGS |= {"eval_samples_per_second", "eval_steps_per_second", "samples_per_second", "tokens_per_second"}


def history_without_timings(workdir) -> list[dict]:
    """The log history but for timings and `train_loss`, the mean loss of the steps this process ran."""
    history = json.loads((workdir / "results/model/log_history.json").read_text())
    return [{key: value for key, value in entry.items() if key not in TIMINGS | {"train_loss"}} for entry in history]


def test_a_killed_run_resumed_by_snakemake_ends_bit_identical_to_an_uninterrupted_one(data_half, tmp_path):
    straight, killed = (copy_build(data_half, tmp_path / name) for name in ("straight", "killed"))
    snakemake(straight, "results/model", config=training_config(straight, pretrain=RESUMABLE))
    config = training_config(killed, pretrain=RESUMABLE)
    write_config(killed, config)
    # the node dies once the first checkpoint is complete: snakemake, the job's shell and training, all at once
    first = RESUMABLE["save_steps"]
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--cores", str(CORES), "results/model"]
    command += ["--configfile", str(killed / "test-config.yaml")]
    process = subprocess.Popen(
        command, cwd=killed, env=interrupting_env(tmp_path, "kill-after-save", first), start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        output, _ = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL, output
    assert not (killed / "results/model").exists()
    [run] = [path.parent for path in killed.glob("checkpoints/pretrain/*/fingerprint.json")]
    assert [path.name for path in run.glob("checkpoint-*")] == [f"checkpoint-{first}"]
    assert json.loads((run / f"checkpoint-{first}" / COMPLETE_FILE).read_text())["step"] == first

    snakemake(killed, "--unlock", config=config)
    snakemake(killed, "results/model", config=config)
    resumed = f"{run.relative_to(killed)}/checkpoint-{first}"
    resumed_log = (killed / "logs/pretrain.log").read_text()
    assert f"resuming from {resumed} (step {first})" in resumed_log
    assert "missing keys" not in resumed_log  # the tied decoder, restored with the embeddings, is not warned of
    metrics = json.loads((killed / "results/model/training_metrics.json").read_text())
    assert metrics["steps"] == RESUMABLE["max_steps"] and metrics["resumed_from"] == resumed
    weights = [(workdir / "results/model/model.safetensors").read_bytes() for workdir in (straight, killed)]
    assert weights[0] == weights[1]
    history = history_without_timings(killed)
    assert history == history_without_timings(straight)
    assert history[0]["step"] == 1 and history[-1]["step"] == RESUMABLE["max_steps"]
    tracked = events(killed / "logs/tracking/pretrain" / run.name)  # both segments' TensorBoard history, as one
    losses = [(entry["step"], entry["loss"]) for entry in history if "loss" in entry]
    assert [step for step, _ in scalars(tracked, "train/loss")] == [step for step, _ in losses]
    assert [loss for _, loss in scalars(tracked, "train/loss")] == pytest.approx([loss for _, loss in losses])
    assert scalars(tracked, "segment/start") == [(1, 1), (first + 1, first + 1)]
    kept = sorted(path.name for path in run.glob("checkpoint-*"))
    assert kept == ["checkpoint-350", "checkpoint-400"]  # save_total_limit: 2

    changed = training_config(killed, pretrain={**RESUMABLE, "max_steps": 100, "learning_rate": 0.002})
    snakemake(killed, "results/model", config=changed)
    log = (killed / "logs/pretrain.log").read_text()
    assert "it was trained with other settings (training.learning_rate, training.max_steps)" in log
    assert "training from scratch" in log


def test_the_training_log_says_where_the_run_stands_at_each_logging_step(trained):
    log = (trained / "logs/pretrain.log").read_text().splitlines()
    progress = [line for line in log if line.startswith("step ") and " loss " in line]
    assert [line.split()[1] for line in progress] == [f"{step}/60" for step in (1, *range(5, 61, 5))]
    assert re.fullmatch(r"step 60/60  loss \d+\.\d{4}  \d+\.\d samples/s  0:00:00 left", progress[-1])
    evaluations = [line for line in log if " eval_loss " in line]
    assert [line.split()[1] for line in evaluations] == ["20/60", "40/60", "60/60"]
    assert any(line.startswith("verified ") for line in log)
