"""A local `snakemake` stopped during pretrain. A SIGTERM to its process group (as Ctrl-C sends SIGINT to it) reaches
the training job, which saves the step it is at and stops; snakemake fails the job, removes its lock, and a plain
rerun resumes to the weights of a run never stopped. A SIGTERM to snakemake alone lets the running job finish."""

import os
import re
import signal
import subprocess
import sys

import pytest
from helpers import CORES, REPO, interrupting_env, snakemake, training_config, write_config
from shared_builds import copy_build

from snakebert.training.checkpoints import COMPLETE_FILE

SETTINGS = {"max_steps": 200, "save_steps": 100_000, "logging_steps": 100, "eval_steps": 100_000}
SIGNAL_STEP = 100


@pytest.fixture(scope="module")
def prepared(data_half, tmp_path_factory):
    """A working directory with the data set built, and the model an unbroken run trains from it."""
    straight = copy_build(data_half, tmp_path_factory.mktemp("local-straight") / "run")
    snakemake(straight, "results/model", config=training_config(straight, pretrain=SETTINGS))
    return data_half, (straight / "results/model/model.safetensors").read_bytes()


def stop_workdir(data_half, tmp_path):
    """A copy of the data set with the settings of these runs, for `snakemake results/model` to read."""
    workdir = copy_build(data_half, tmp_path / "run")
    write_config(workdir, training_config(workdir, pretrain=SETTINGS))
    return workdir


def signalled_snakemake(workdir, to_group: bool) -> int:
    """`snakemake results/model`, sent SIGTERM (to its process group or to it alone) by the pretrain job after step
    SIGNAL_STEP (tests/interrupt.py)."""
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--cores", str(CORES), "results/model"]
    command += ["--configfile", str(workdir / "test-config.yaml")]
    point = "term-group-after-step" if to_group else "term-leader-after-step"
    process = subprocess.Popen(
        command, cwd=workdir, env=interrupting_env(workdir.parent, point, SIGNAL_STEP), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        return process.wait(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)


def test_a_sigterm_to_the_process_group_saves_the_step_and_a_plain_rerun_resumes_bit_identical(prepared, tmp_path):
    workdir = stop_workdir(prepared[0], tmp_path)
    assert signalled_snakemake(workdir, to_group=True) == 1
    log = (workdir / "logs/pretrain.log").read_text()
    found = re.search(r"stopped on request \(SIGTERM\) at step (\d+): checkpoint saved in (\S+)/checkpoint-\1;", log)
    assert found, log
    step = int(found.group(1))
    assert step == SIGNAL_STEP and (workdir / found.group(2) / f"checkpoint-{step}" / COMPLETE_FILE).exists()
    assert not (workdir / "results/model").exists()

    snakemake(workdir, "results/model", "--configfile", str(workdir / "test-config.yaml"))  # no --unlock
    assert (
        f"resuming from {found.group(2)}/checkpoint-{step} (step {step})" in (workdir / "logs/pretrain.log").read_text()
    )
    assert (workdir / "results/model/model.safetensors").read_bytes() == prepared[1]


def test_a_sigterm_to_snakemake_alone_lets_the_running_job_finish(prepared, tmp_path):
    workdir = stop_workdir(prepared[0], tmp_path)
    assert signalled_snakemake(workdir, to_group=False) == 1  # "Will exit after finishing currently running jobs"
    assert "stopped on request" not in (workdir / "logs/pretrain.log").read_text()
    assert (workdir / "results/model/model.safetensors").read_bytes() == prepared[1]
