"""A signal costs no steps: pretraining saves a checkpoint at the step after it, exits with the stopped status and
says so in one line; run again, it resumes there and ends with the weights of a run never stopped."""

import json
import re
import signal
import subprocess
import sys
import time

import pytest
from helpers import REPO, TINY_TRAINING, build_tiny_data, snakemake_env

from snakebert.config_defaults import schema_defaults
from snakebert.errors import STOPPED_EXIT
from snakebert.files.settings_files import settings_file
from snakebert.training.checkpoints import COMPLETE_FILE
from snakebert.training.stop_request import StopRequest

SETTINGS = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "save_steps": 1000}  # no periodic checkpoint
STOP_STEP = 10  # where the run waits for its signal (tests/interrupt.py wait-for-stop)
HARNESS = [sys.executable, str(REPO / "tests/interrupt.py")]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return build_tiny_data(tmp_path_factory.mktemp("stop-data"))


def pretrain_command(data, folder, **settings) -> list[str]:
    return [
        sys.executable, str(REPO / "scripts/pretrain.py"), "--backend", "cpu", "--world-size", "1",
        "--manifest", str(data.manifest), "--tokenizer", str(data.tokenizer),
        "--model", settings_file(TINY_TRAINING["model"], folder),
        "--pretrain", settings_file({**SETTINGS, **settings}, folder),
        "--threads", "1",
        "--checkpoints", str(folder / "checkpoints"), "--out", str(folder / "model"),
    ]  # fmt: skip


def signalled_run(data, folder, number: int) -> tuple[int, str]:
    """The run sent `number` once it waits for a signal after step STOP_STEP: exit, output."""
    process = subprocess.Popen(
        [*HARNESS, "wait-for-stop", str(STOP_STEP), *pretrain_command(data, folder)[2:]],
        env=snakemake_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    lines = []
    try:
        for line in process.stdout:
            lines.append(line)
            if f"waiting for a stop signal after step {STOP_STEP}" in line:
                process.send_signal(number)
                break
        status = process.wait(timeout=300)  # what the run says after the signal fits in the pipe
    finally:
        if process.poll() is None:
            process.kill()
    return status, "".join(lines + process.stdout.readlines())


@pytest.fixture(scope="module")
def unbroken(data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("unbroken")
    subprocess.run(pretrain_command(data, folder), env=snakemake_env(), check=True, capture_output=True)
    return (folder / "model/model.safetensors").read_bytes()


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGUSR1], ids=["SIGTERM", "SIGUSR1"])
def test_a_signal_saves_a_checkpoint_stops_and_the_rerun_ends_bit_identical(data, unbroken, tmp_path, number):
    status, output = signalled_run(data, tmp_path, number)
    assert status == STOPPED_EXIT, output
    found = re.search(
        rf"stopped on request \({number.name}\) at step (\d+): checkpoint saved in (\S+)/checkpoint-\1;", output
    )
    assert found and "Traceback" not in output, output
    step = int(found.group(1))
    assert step == STOP_STEP
    assert [path.name for path in (tmp_path / "checkpoints").glob("*/checkpoint-*")] == [f"checkpoint-{step}"]
    assert not (tmp_path / "model").exists()

    resumed = subprocess.run(pretrain_command(data, tmp_path), env=snakemake_env(), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    metrics = json.loads((tmp_path / "model/training_metrics.json").read_text())
    assert metrics["resumed_from"].endswith(f"checkpoint-{step}") and metrics["steps"] == SETTINGS["max_steps"]
    assert (tmp_path / "model/model.safetensors").read_bytes() == unbroken


def test_the_handlers_are_the_callers_again_after_the_run():
    before = signal.getsignal(signal.SIGINT)
    with StopRequest() as request:
        assert signal.getsignal(signal.SIGINT) == request._handle
        signal.raise_signal(signal.SIGUSR1)
        signal.raise_signal(signal.SIGUSR1)  # twice: still a request, nothing else
    assert request.signal == signal.SIGUSR1 and signal.getsignal(signal.SIGINT) == before


def test_a_checkpoint_whose_save_was_killed_is_named_skipped_and_the_run_resumes_from_the_one_before(
    data, unbroken, tmp_path
):
    killed = subprocess.run(
        [*HARNESS, "kill-in-save", "40", *pretrain_command(data, tmp_path, save_steps=20)[2:]],
        env=snakemake_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    run = next((tmp_path / "checkpoints").glob("*/"))
    assert sorted(path.name for path in run.glob("checkpoint-*")) == ["checkpoint-20", "checkpoint-40"]
    assert (run / "checkpoint-40/model.safetensors").exists() and not (run / "checkpoint-40" / COMPLETE_FILE).exists()

    resumed = subprocess.run(
        pretrain_command(data, tmp_path, save_steps=20), env=snakemake_env(), capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr
    said = resumed.stdout + resumed.stderr
    assert f"not resuming from {run / 'checkpoint-40'}: its save did not finish (it has no {COMPLETE_FILE})" in said
    assert f"resuming from {run / 'checkpoint-20'} (step 20)" in said
    assert (tmp_path / "model/model.safetensors").read_bytes() == unbroken
    assert sorted(path.name for path in run.glob("checkpoint-*")) == ["checkpoint-40", "checkpoint-60"]
    assert all(json.loads((run / name / COMPLETE_FILE).read_text())["step"] == int(name[11:]) for name in
               ("checkpoint-40", "checkpoint-60"))  # fmt: skip


def test_at_the_deadline_of_a_slurm_job_the_run_saves_and_stops_without_a_signal(data, tmp_path):
    """A run far longer than its job (100,000 steps, no periodic checkpoint), in a job that ends an hour from now:
    tests/interrupt.py brings the job's end to the end of step STOP_STEP, so the run saves that step and stops at its
    deadline, wherever the machine's speed would have put it (the deadline's arithmetic: tests/unit)."""
    settings = {"max_steps": 100_000, "save_steps": 100_000, "stop_before_deadline": "2s"}
    stopped = subprocess.run(
        [*HARNESS, "deadline-at-step", str(STOP_STEP), *pretrain_command(data, tmp_path, **settings)[2:]],
        env={**snakemake_env(), "SLURM_JOB_END_TIME": str(int(time.time()) + 3600)}, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert stopped.returncode == STOPPED_EXIT, stopped.stderr
    said = stopped.stdout + stopped.stderr
    assert "segment 1 of the run: steps 1-100000; the job ends at" in said
    assert f"stopped on request (the job's deadline) at step {STOP_STEP}: checkpoint saved" in said
    saved = next((tmp_path / "checkpoints").glob(f"*/checkpoint-{STOP_STEP}"))
    record = json.loads((saved / COMPLETE_FILE).read_text())
    assert record["save_seconds"] > 0 and record["segments"] == [{"first_step": 1, "last_step": STOP_STEP}]
