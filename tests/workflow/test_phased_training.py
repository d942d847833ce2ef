"""Sequence-length phases through the workflow: a packing per block size from the same token files, one pretrain
job training the phases in order with static shapes in each, the schedule across the boundary, and a resume from
a checkpoint in either phase that ends bit-identical to the uninterrupted run."""

import json
import shutil

import pytest
from helpers import planned_jobs, snakemake, training_config
from shape_log import changed_ops, training_step_shapes
from shared_builds import copy_build

from snakebert.config_defaults import schema_defaults
from snakebert.data.manifest import read_manifest
from snakebert.training.job import TrainingJob
from snakebert.training.pretrain import phase_trainer, prepare_run
from snakebert.training.schedule import shape

# 40 steps of 8-token blocks (batch 16, 25% masked: 2 predictions per block), then 20 of the data set's 16-token
# blocks (15%: 2 predictions)
PHASE_1 = {"block_size": 8, "steps": 40, "per_device_train_batch_size": 16, "mlm_probability": 0.25}
PHASES = [{**PHASE_1, "max_predictions": 2, "learning_rate": 0.01}, {"block_size": 16, "steps": 20}]
SETTINGS = {"phases": PHASES, "save_steps": 10, "save_total_limit": 3, "lr_schedule_scope": "phase"}


def phased_config(workdir):
    return training_config(workdir, pretrain=SETTINGS)


@pytest.fixture(scope="module")
def phased(data_half, tmp_path_factory):
    workdir = copy_build(data_half, tmp_path_factory.mktemp("phased") / "work")
    snakemake(workdir, "results/model", "results/eval/metrics.json", config=phased_config(workdir))
    return workdir


def test_each_block_size_is_packed_from_the_same_token_files_and_listed_in_the_manifest(phased):
    manifest = read_manifest(str(phased / "results/dataset/manifest.json"))
    (packing,) = manifest.packings
    assert packing.block_size == 8
    for main, shard in zip(manifest.shards, packing.shards, strict=True):
        stats = json.loads((phased / "results/dataset" / shard.path).with_suffix(".json").read_text())
        assert stats["tokens"] == main.tokens  # the same tokens, in twice as many blocks
        assert shard.blocks == main.tokens // 8 and shard.path.startswith("../blocks-8/")
    assert 0 < packing.train_blocks < packing.blocks
    added = {"phases": [*PHASES, {"block_size": 16, "steps": 10}]}
    jobs = planned_jobs(phased, training_config(phased, pretrain={**SETTINGS, **added, "max_steps": 70}))
    assert "tokenize_shard" not in jobs and "pack_shard" not in jobs  # a new phase of known sizes packs nothing


def test_one_job_trains_the_phases_in_order_with_their_own_schedules(phased):
    metrics = json.loads((phased / "results/model/training_metrics.json").read_text())
    assert metrics["steps"] == 60
    assert [(phase["block_size"], phase["first_step"], phase["last_step"]) for phase in metrics["phases"]] == [
        (8, 1, 40),
        (16, 41, 60),
    ]
    assert [phase["global_batch_size"] for phase in metrics["phases"]] == [16, 8]
    assert [phase["predictions_per_block"] for phase in metrics["phases"]] == [2, 2]
    history = json.loads((phased / "results/model/log_history.json").read_text())
    rates = {entry["step"]: entry["learning_rate"] for entry in history if "learning_rate" in entry}
    warmup = phased_config(phased)["pretrain"]["warmup_steps"]
    # each phase warms up and decays on its own (lr_schedule_scope: phase); the rate logged at step s is the one
    # step s took, the schedule's value after s - 1 steps
    for step, peak, start, steps in ((20, 0.01, 0, 40), (40, 0.01, 0, 40), (45, 0.005, 40, 20), (60, 0.005, 40, 20)):
        assert rates[step] == pytest.approx(peak * shape(step - 1 - start, warmup, steps, "linear", 0)), step
    assert rates[45] == pytest.approx(0.005 * 4 / 5)  # phase 2 warms up again from 0, at its own peak
    log = (phased / "logs/pretrain.log").read_text()
    assert "(phase 1: 8-token blocks, steps 1-40)" in log and "(phase 2: 16-token blocks, steps 41-60)" in log
    assert "do not match" not in log and "missing keys" not in log  # phase 2's own batch, the tied decoder
    progress = [line.split()[1] for line in log.splitlines() if line.startswith("step ") and " loss " in line]
    assert progress[:2] == ["1/60", "5/60"] and progress[-1] == "60/60"  # the run's steps, over both phases
    assert [entry["step"] for entry in history if "eval_loss" in entry] == [20, 40, 60]


def test_evaluation_masks_the_data_sets_blocks_at_the_evaluation_rate(phased):
    metrics = json.loads((phased / "results/eval/metrics.json").read_text())
    assert metrics["predictions_per_block"] == 2  # round(0.15 x 16), whatever training's phases masked


def test_each_phase_has_the_same_shapes_at_every_step(phased):
    manifest = json.loads((phased / "results/dataset/manifest.json").read_text())
    config = phased_config(phased)
    settings = {**schema_defaults("pretrain"), **config["pretrain"]}
    job = TrainingJob(
        manifest=str(phased / "results/dataset/manifest.json"),
        tokenizer=str(phased / "results/tokenizer"),
        model={**schema_defaults("model"), **config["model"]},
        pretrain=settings,
        backend="cpu",
        checkpoints=str(phased / "shape-checkpoints"),
    )
    run = prepare_run(job)
    logs = []
    for phase in run.phases:
        trainer = phase_trainer(run, phase)
        batches = iter(trainer.get_train_dataloader())
        logs.append([training_step_shapes(trainer, next(batches)) for _ in range(3)])
        assert changed_ops(logs[-1]) == [], f"phase {phase.number}"
    assert changed_ops([logs[0][0], logs[1][0]]) != []  # the phases are two graphs
    assert manifest["packings"][0]["block_size"] == 8


@pytest.mark.parametrize("resume_step", [50, 40], ids=["inside-phase-2", "at-the-boundary"])
def test_a_resume_from_a_checkpoint_of_phase_2_or_the_boundary_ends_bit_identical(phased, resume_step):
    """As if the job was killed after its checkpoint at `resume_step`; the rerun rebuilds what was deleted."""
    uninterrupted = (phased / "results/model/model.safetensors").read_bytes()
    history = json.loads((phased / "results/model/log_history.json").read_text())
    (run,) = [path.parent for path in phased.glob("checkpoints/pretrain/*/fingerprint.json")]
    assert sorted(path.name for path in run.glob("checkpoint-*")) == ["checkpoint-40", "checkpoint-50", "checkpoint-60"]
    for later in run.glob("checkpoint-*"):
        if int(later.name.split("-")[1]) > resume_step:
            shutil.rmtree(later)
    shutil.rmtree(phased / "results/model")
    snakemake(phased, "results/model", config=phased_config(phased))
    metrics = json.loads((phased / "results/model/training_metrics.json").read_text())
    assert metrics["resumed_from"] == str(run / f"checkpoint-{resume_step}").removeprefix(f"{phased}/")
    assert [phase["trained_here"] for phase in metrics["phases"]] == [False, True]
    assert (phased / "results/model/model.safetensors").read_bytes() == uninterrupted
    resumed = json.loads((phased / "results/model/log_history.json").read_text())
    assert [entry.get("loss") for entry in resumed] == [entry.get("loss") for entry in history]
