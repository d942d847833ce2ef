"""A stop on 2 CPU ranks through torchrun (gloo), as the workflow launches them (scripts/torch_spawn.py): whichever
process gets the signal (one rank, the torchrun agent, the whole process group, twice, or during an evaluation),
every rank saves the same step, nothing hangs, and a rerun resumes to the weights of a run never stopped, its one
TensorBoard history continued by the second segment; rank 0 alone reports to each tracker."""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, TINY_TRAINING, build_tiny_data, snakemake_env
from tensorboard_history import events, scalars
from tracker_histories import mlflow_history, mlflow_runs, wandb_history, wandb_run_ids, wandb_runs

from snakebert.config_defaults import schema_defaults
from snakebert.errors import STOPPED_EXIT
from snakebert.files.settings_files import settings_file
from snakebert.files.tracking_settings import write_tracking_settings
from snakebert.training.checkpoints import COMPLETE_FILE

SETTINGS = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "save_steps": 1000}  # no periodic checkpoint
TIMEOUT = 180  # seconds a case may take: a hang fails it, it does not stall the suite
STOP_LINE = r"stopped on request \(SIGTERM\) at step (\d+): checkpoint saved"
STOP_STEP = 10  # where rank 1 waits for the signal (tests/interrupt.py wait-for-stop)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return build_tiny_data(tmp_path_factory.mktemp("ranks-data"))


def torchrun(data, folder, harness: tuple[str, ...] = (), trackers: tuple[str, ...] = ("tensorboard",)) -> list[str]:
    """The command of a 2-rank run in `folder` (through tests/interrupt.py's `harness`, if any), reporting to
    `trackers` as the `tracking` config asks: in the tracking settings file the workflow writes, passed through
    torch_spawn and torchrun as the rule passes it."""
    script = [str(REPO / "tests/interrupt.py"), *harness] if harness else [str(REPO / "scripts/pretrain.py")]
    tracking = write_tracking_settings(
        {**schema_defaults("tracking"), "trackers": list(trackers)}, str(folder / "tracking.json")
    )
    return [
        sys.executable, str(REPO / "scripts/torch_spawn.py"), "--nproc_per_node", "2", *script,
        "--backend", "cpu", "--world-size", "2", "--manifest", str(data.manifest), "--tokenizer", str(data.tokenizer),
        "--model", settings_file(TINY_TRAINING["model"], folder), "--pretrain", settings_file(SETTINGS, folder),
        "--threads", "1",
        "--checkpoints", str(folder / "checkpoints"), "--tracking", tracking,
        "--tracking-dir", str(folder / "logs/tracking"),
        "--out", str(folder / "model"),
    ]  # fmt: skip


def worker(agent: int, rank: int) -> int:
    """The PID of the torchrun agent's worker of `rank`."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            environment = (stat.parent / "environ").read_bytes().split(b"\0")
        except (OSError, IndexError):
            continue
        if parent == agent and f"RANK={rank}".encode() in environment:
            return int(stat.parent.name)
    raise AssertionError(f"no worker of rank {rank} under torchrun {agent}")


def send(process: subprocess.Popen, to: str) -> None:
    if to == "rank 1":
        os.kill(worker(process.pid, 1), signal.SIGTERM)
    elif to == "the agent":
        process.send_signal(signal.SIGTERM)
    else:  # the process group (the agent and both ranks), once or twice
        for _ in range(2 if to == "the group twice" else 1):
            os.killpg(process.pid, signal.SIGTERM)


def stopped_run(data, folder, to: str) -> tuple[int, str]:
    """A torchrun of 2 ranks stopped by a SIGTERM `to` a process once rank 1 waits for a signal after step STOP_STEP
    (for "an evaluation": sent by rank 1 to the group as its first evaluation starts); its exit and output."""
    harness = ("term-in-evaluation", "1") if to == "an evaluation" else ("wait-for-stop", str(STOP_STEP))
    process = subprocess.Popen(
        torchrun(data, folder, harness), env=snakemake_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
    )  # fmt: skip
    lines = []
    try:
        for line in process.stdout:
            lines.append(line)
            if f"rank 1: waiting for a stop signal after step {STOP_STEP}" in line:
                send(process, to)
                break
        status = process.wait(timeout=TIMEOUT)  # what the ranks say after the signal fits in the pipe
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return status, "".join(lines + process.stdout.readlines())


@pytest.fixture(scope="module")
def unbroken(data, tmp_path_factory):
    """The run unstopped, reported to every tracker (W&B offline, MLflow's file store under its working folder)."""
    folder = tmp_path_factory.mktemp("unbroken-ranks")
    command = torchrun(data, folder, trackers=("tensorboard", "wandb", "mlflow"))
    subprocess.run(command, env=snakemake_env(), cwd=folder, check=True, capture_output=True, timeout=TIMEOUT)
    return folder


def test_two_ranks_report_one_run_to_each_tracker(unbroken):
    """Rank 0 alone reports: one TensorBoard history, one W&B run, one MLflow run, each with every logged step."""
    [history] = [path for path in (unbroken / "logs/tracking").iterdir() if path.name != "mlflow"]
    history_file = json.loads((unbroken / "model/log_history.json").read_text())
    logged = [entry["step"] for entry in history_file if "loss" in entry]
    assert len(list(history.glob("events.out.tfevents.*"))) == 1
    assert [step for step, _ in scalars(events(history), "train/loss")] == logged
    assert wandb_run_ids(history) == {history.name} and len(wandb_runs(history)) == 1
    assert [step for step, _ in wandb_history(history, "train/loss")] == logged
    [run] = mlflow_runs(unbroken / "logs/tracking/mlflow")
    assert [step for step, _ in mlflow_history(unbroken / "logs/tracking/mlflow", run.info.run_id, "loss")] == logged


@pytest.mark.parametrize("to", ["rank 1", "the agent", "the group", "the group twice", "an evaluation"])
def test_a_sigterm_to_any_process_stops_every_rank_at_one_saved_step_and_the_rerun_ends_bit_identical(
    data, unbroken, tmp_path, to
):
    status, output = stopped_run(data, tmp_path, to)
    steps = {int(step) for step in re.findall(STOP_LINE, output)}
    assert len(re.findall(STOP_LINE, output)) == 2 and len(steps) == 1, output  # both ranks, one step
    assert status == STOPPED_EXIT and "Traceback" not in output, output
    assert "the ranks stopped on request: their lines above name the checkpoint" in output
    [step] = steps
    assert step == (SETTINGS["eval_steps"] + 1 if to == "an evaluation" else STOP_STEP)  # the step after an evaluation
    [saved] = (tmp_path / "checkpoints").glob("*/checkpoint-*")
    assert saved.name == f"checkpoint-{step}" and (saved / COMPLETE_FILE).exists()
    assert {path.name for path in saved.glob("rng_state_*.pth")} == {"rng_state_0.pth", "rng_state_1.pth"}

    resumed = subprocess.run(
        torchrun(data, tmp_path), env=snakemake_env(), capture_output=True, text=True, timeout=TIMEOUT
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert (tmp_path / "model/model.safetensors").read_bytes() == (unbroken / "model/model.safetensors").read_bytes()
    [history] = (tmp_path / "logs/tracking").iterdir()  # the run's one history: rank 0 wrote it, one file a segment
    assert len(list(history.glob("events.out.tfevents.*"))) == 2
    logged = json.loads((tmp_path / "model/log_history.json").read_text())
    tracked = events(history)
    assert [step for step, _ in scalars(tracked, "train/loss")] == [
        entry["step"] for entry in logged if "loss" in entry
    ]
    assert scalars(tracked, "segment/start") == [(1, 1), (step + 1, step + 1)]
