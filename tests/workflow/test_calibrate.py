"""`snakemake calibrate`: a real burst of training steps on the CPU through pretrain's launch, whose projection adds
up, costs what its price says, and that pretrain never waits for."""

import json
import re

import pytest
from helpers import planned_jobs, snakemake, training_config
from shared_builds import copy_build


@pytest.fixture(scope="module")
def calibrated(data_half, tmp_path_factory):
    workdir = copy_build(data_half, tmp_path_factory.mktemp("calibrated") / "work")
    config = training_config(workdir, calibrate={"warmup_steps": 3, "steps": 12, "price_per_node_hour": 2.5})
    snakemake(workdir, "calibrate", config=config)
    return workdir, config


def test_calibration_projects_pretrains_run_from_a_timed_burst(calibrated):
    workdir, config = calibrated
    result = json.loads((workdir / "results/calibration.json").read_text())
    assert (result["backend"], result["world_size"], result["nodes"]) == ("cpu", 1, 1)
    assert (result["warmup_steps"], result["measured_steps"], result["max_steps"]) == (3, 12, 60)
    assert result["samples_per_second"] == pytest.approx(result["global_batch_size"] / result["seconds_per_step"])
    parts = (
        result["warmup_seconds"]
        + (60 - 3) * result["seconds_per_step"]
        + (result["evaluations"] - 1) * result["seconds_per_evaluation"]
        + result["checkpoints"] * result["seconds_per_checkpoint"]
    )
    assert result["projected_train_seconds"] == pytest.approx(parts)
    assert result["projected_wall_seconds"] == pytest.approx(result["startup_seconds"] + parts)
    assert result["projected_cost"] == pytest.approx(2.5 * result["projected_wall_seconds"] / 3600)
    log = (workdir / "logs/calibrate.log").read_text()
    assert "rank 0 of 1: the first batch of epoch 0 reads train blocks" in log
    assert result["seconds_per_checkpoint"] > 0 and list((workdir / "checkpoints/calibrate").glob("*")) == []
    assert not (workdir / "checkpoints/pretrain").exists()


def test_pretrain_does_not_wait_for_a_calibration(calibrated):
    workdir, config = calibrated
    assert "calibrate" not in planned_jobs(workdir, config)
    (workdir / "results/calibration.json").unlink()
    assert "calibrate" not in planned_jobs(workdir, config)


def test_calibrate_launches_as_pretrain_does(workdir):
    config = training_config(workdir)
    resources = ("--set-resources", "pretrain:hpu=8", "calibrate:hpu=8")
    done = snakemake(workdir, "-n", "-p", "results/model", "calibrate", *resources, config=config)
    launches = {
        rule: re.search(rf"Shell command: (.*) \S*scripts/{rule}.py --backend (\w+) --world-size (\d+) ", done.stdout)
        for rule in ("pretrain", "calibrate")
    }
    assert launches["pretrain"].groups() == launches["calibrate"].groups()
    assert re.fullmatch(r"python \S*gaudi_spawn.py --world_size 8 --use_mpi", launches["pretrain"].group(1))


def test_a_run_of_two_phases_is_calibrated_phase_by_phase(data_half, workdir):
    copy_build(data_half, workdir)
    phases = [{"block_size": 8, "steps": 40, "per_device_train_batch_size": 16}, {"block_size": 16, "steps": 20}]
    config = training_config(workdir, pretrain={"phases": phases}, calibrate={"warmup_steps": 2, "steps": 4})
    snakemake(workdir, "calibrate", config=config)
    result = json.loads((workdir / "results/calibration.json").read_text())
    assert [(phase["block_size"], phase["max_steps"]) for phase in result["phases"]] == [(8, 40), (16, 20)]
    assert [phase["global_batch_size"] for phase in result["phases"]] == [16, 8]
    assert result["max_steps"] == 60 and result["projected_train_seconds"] == pytest.approx(
        sum(phase["projected_train_seconds"] for phase in result["phases"])
    )
    log = (workdir / "logs/calibrate.log").read_text()
    assert "(phase 1: 8-token blocks, steps 1-6)" in log and "(phase 2: 16-token blocks, steps 1-6)" in log
