"""Long runs on the real SLURM test cluster (tests/slurm/cluster.sh): a pretrain job stopped by `scancel
--signal=TERM`, by a preemption or by its time limit, saves a checkpoint and fails (exit 75); the profile's retries
submit pretrain again, and the run resumes to the weights of one run never stopped. The workflow's requeue watcher
looks every 2 s here (SNAKEBERT_REQUEUE_WATCH_SECONDS), and the test lets a requeued job start without SLURM's hold of
about two minutes: the timers are SLURM's and the watcher's, not what is tested."""

import json
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml
from helpers import CORES, REPO, interrupting_env, snakemake, training_config, write_config
from shared_builds import copy_build
from test_slurm import ACCOUNT, QUICK_STATUS, fitted_profile, run, slurm_jobs

from snakebert.slurm_requeue import INTERVAL_VARIABLE

STOP_STEP = 100  # where a stopped run's first job waits for its stop (tests/interrupt.py), or meets its deadline
STOPPED = {"max_steps": 200, "save_steps": 100_000, "logging_steps": 50}  # a run stopped once, at STOP_STEP
WAITING = f"waiting for a stop signal after step {STOP_STEP}"


@pytest.fixture(autouse=True)
def quick_requeue_watch(monkeypatch):
    monkeypatch.setenv(INTERVAL_VARIABLE, "2")


EVERY_RUN = {"backend": "cpu", "eval_steps": 100_000}  # the pretrain settings of every run here
UNBROKEN = {}  # a local run's weights, by its settings: the same for every profile


def unbroken_run(data_half, folder, settings: dict) -> bytes:
    """The weights a local pretrain of these settings trains in `folder` (a copy of the shared build); once per
    settings."""
    key = json.dumps(settings, sort_keys=True)
    if key not in UNBROKEN:
        local = copy_build(data_half, folder)
        snakemake(local, "results/model", config=training_config(local, pretrain=settings))
        UNBROKEN[key] = (local / "results/model/model.safetensors").read_bytes()
    return UNBROKEN[key]


def prepared(data_half, workdir, pretrain: dict) -> tuple[dict, bytes]:
    """The data set in `workdir` (a copy of the shared build) for a pretrain of these settings, and the weights a
    local run trains."""
    settings = {**EVERY_RUN, **pretrain}
    config = training_config(copy_build(data_half, workdir), pretrain=settings)
    write_config(workdir, config)  # what the stopped runs read
    return config, unbroken_run(data_half, workdir.parent / "local", settings)


def profile_with(folder, cluster, name: str = "slurm-gpu", **pretrain) -> str:
    """profiles/`name` fitted to the test cluster, with these pretrain resources."""
    path = fitted_profile(name, folder, cluster) / "config.yaml"
    profile = yaml.safe_load(path.read_text())
    profile["set-resources"]["pretrain"].update(pretrain)
    path.write_text(yaml.safe_dump(profile, sort_keys=False))
    return str(path.parent)


def pretrain_attempts(run_id: str, since: datetime) -> list[dict]:
    return [job for job in slurm_jobs(run_id, since) if job["rule"] == "pretrain"]


def scancel(job: str) -> None:
    assert run("scancel", "--signal=TERM", job).returncode == 0


def preempt(job: str) -> None:
    """A job in the test cluster's higher-tier partition (urgent) that needs the whole node: SLURM preempts `job`
    (PreemptMode=CANCEL: SIGTERM, then the kill after the partition's grace time, 120 s on cpu and none on spot)."""
    done = run(
        "sbatch", "--parsable", "-A", ACCOUNT, "-p", "urgent", "--exclusive", "-o", "/dev/null", "--wrap", "true"
    )
    assert done.returncode == 0, done.stderr


def preempt_and_release(job: str) -> None:
    """preempt `job` on a partition without a grace time, and once the watcher has requeued it and SLURM holds it
    (pending, reason BeginTime, for about two minutes), let it start at once."""
    preempt(job)
    deadline = time.monotonic() + 300
    while run("squeue", "--noheader", "--jobs", job, "--format=%T %r").stdout.split() != ["PENDING", "BeginTime"]:
        assert time.monotonic() < deadline, f"SLURM job {job} was not requeued in 300 s"
        time.sleep(0.5)  # waits for the job's state; no outcome depends on the time
    done = run("scontrol", "update", f"JobId={job}", "StartTime=now")
    assert done.returncode == 0, done.stderr


def stopped_run(workdir, profile: str, stop) -> tuple[int, str, str]:
    """`snakemake results/model` with `profile`, its pretrain job stopped by `stop` once it waits for a stop after
    step STOP_STEP (tests/interrupt.py wait-for-stop: the stop lands there, however fast the job trains): the exit
    status, the output and the pretrain job's ID (a limit of 600 s, over the requeue delay and the watch's looks)."""
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--cores", str(CORES), "results/model"]
    command += ["--configfile", str(workdir / "test-config.yaml"), "--workflow-profile", profile, *QUICK_STATUS]
    process = subprocess.Popen(command, cwd=workdir, env=interrupting_env(workdir.parent, "wait-for-stop", STOP_STEP),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    log = workdir / "logs/pretrain.log"
    try:
        while WAITING not in (log.read_text() if log.exists() else ""):
            assert process.poll() is None, process.stdout.read()
            time.sleep(0.2)  # waits for a line in the log; no outcome depends on the time
        [job] = [line.split()[0] for line in run("squeue", "--noheader", "--format=%i %k").stdout.splitlines()
                 if line.split()[1:] == ["rule_pretrain"]]  # fmt: skip
        stop(job)
        output, _ = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, output, job


def resumed_once(workdir, unbroken: bytes) -> None:
    """The run took two segments, the second from the first's last step, to the unbroken run's weights."""
    metrics = json.loads((workdir / "results/model/training_metrics.json").read_text())
    last = STOPPED["max_steps"]
    assert metrics["segments"] == [
        {"first_step": 1, "last_step": STOP_STEP}, {"first_step": STOP_STEP + 1, "last_step": last}
    ]  # fmt: skip
    assert f"segment 2 of the run: steps {STOP_STEP + 1}-{last}" in (workdir / "logs/pretrain.log").read_text()
    assert (workdir / "results/model/model.safetensors").read_bytes() == unbroken


@pytest.mark.parametrize(
    "profile, stop",
    [("slurm-gpu", scancel), ("slurm-cpu", scancel), ("slurm-cpu", preempt)],
    ids=["scancel, the launch's own srun step", "scancel, in the plugin's step", "preemption with a grace time"],
)
def test_a_stop_saves_and_the_retry_resumes_to_the_unbroken_weights(
    data_half, workdir, tmp_path, cluster, profile, stop
):
    """`scancel --signal=TERM`, or a preemption that cancels the job after a grace time: the job saves and fails
    (a job that ends within its grace time is FAILED, not PREEMPTED, so the plugin sees it end), and the retry
    resumes."""
    config, unbroken = prepared(data_half, workdir, STOPPED)
    since = datetime.now() - timedelta(minutes=1)
    status, output, _ = stopped_run(workdir, profile_with(tmp_path / "profiles", cluster, profile), stop)
    assert status == 0, output
    run_id = re.search(r"SLURM run ID: (\S+)", output).group(1)
    assert [attempt["State"] for attempt in pretrain_attempts(run_id, since)] == ["FAILED", "COMPLETED"]
    resumed_once(workdir, unbroken)


def test_a_job_preempted_with_no_grace_time_is_requeued_and_resumes_to_the_unbroken_weights(
    data_half, workdir, tmp_path, cluster
):
    """On spot (no grace time) the preempted job ends PREEMPTED, which the plugin would wait on forever: the main
    snakemake process requeues it, and the job runs again under its ID and resumes."""
    config, unbroken = prepared(data_half, workdir, STOPPED)
    profile = profile_with(tmp_path / "profiles", cluster, "slurm-cpu", slurm_partition="'spot'")
    status, output, job = stopped_run(workdir, profile, preempt_and_release)
    assert status == 0, output
    assert f"SLURM job {job} was preempted and cancelled: requeued it (scontrol requeue {job})" in output
    states = run("sacct", "--duplicates", "--allocations", "--noheader", "--format=State", "--jobs", job).stdout
    assert states.split() == ["REQUEUED", "COMPLETED"], states  # the preempted run, as sacct shows it once requeued
    resumed_once(workdir, unbroken)


def test_a_preempted_job_slurm_refuses_to_requeue_stops_the_workflow(data_half, workdir, tmp_path, cluster):
    """A job submitted with --no-requeue, preempted with no grace time: the workflow ends, with the reason, instead
    of waiting forever; the stop saved its checkpoint, for the next run to resume from."""
    prepared(data_half, workdir, STOPPED)
    profile = profile_with(tmp_path / "profiles", cluster, "slurm-cpu", slurm_partition="'spot'")
    settings = yaml.safe_load((Path(profile) / "config.yaml").read_text())
    del settings["slurm-requeue"]
    (Path(profile) / "config.yaml").write_text(yaml.safe_dump({**settings, "slurm-no-requeue": True}, sort_keys=False))
    status, output, job = stopped_run(workdir, profile, preempt)
    assert status != 0, output
    reason = f"SLURM refuses to requeue it: Requested operation is presently disabled for job {job}"
    assert f"SLURM job {job} was preempted and cancelled, and {reason}" in output, output
    assert list((workdir / "checkpoints/pretrain").glob("*/checkpoint-*")), output


def test_a_run_longer_than_its_time_limit_goes_through_segments_to_the_unbroken_weights(
    data_half, workdir, tmp_path, cluster
):
    """Jobs with a time limit, without a signal: the first job's end comes at the end of step STOP_STEP
    (tests/interrupt.py deadline-at-step moves the end SLURM gave it there: the test, not the machine's speed, says
    where the run stops), so it saves and stops at its deadline (pretrain.stop_before_deadline) and fails; the retry
    trains the rest in a job of its own."""
    config, unbroken = prepared(data_half, workdir, {**STOPPED, "stop_before_deadline": "30s"})
    since = datetime.now() - timedelta(minutes=1)
    profile = profile_with(tmp_path / "profiles", cluster, runtime=5, slurm_extra="'--exclusive'")
    env = interrupting_env(tmp_path, "deadline-at-step", STOP_STEP)
    done = snakemake(workdir, "results/model", "--workflow-profile", profile, *QUICK_STATUS, config=config, env=env)
    run_id = re.search(r"SLURM run ID: (\S+)", done.stdout + done.stderr).group(1)
    assert [attempt["State"] for attempt in pretrain_attempts(run_id, since)] == ["FAILED", "COMPLETED"]
    resumed_once(workdir, unbroken)
