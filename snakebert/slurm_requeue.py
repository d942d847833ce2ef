"""A SLURM job preempted by cancelling (PreemptMode=CANCEL) with no grace time, or with a save that outlasts it,
ends PREEMPTED. The SLURM executor plugin (2.8.0) counts a PREEMPTED job as still active and leaves it to SLURM,
which never runs a cancelled job again: the workflow would wait for it forever. So the main snakemake process (the
Snakefile's onstart) watches the jobs submitted from its working directory and requeues each preempted one with
`scontrol requeue`: the job runs again under the ID the plugin waits for (SLURM holds a requeued job for about two
minutes first), and pretrain resumes from its newest complete checkpoint. Where SLURM refuses (a job submitted with
--no-requeue, a cluster with JobRequeue=0), the watcher says why and stops the workflow as a Ctrl-C does, which
cancels its other jobs: it never waits on a job that cannot run again. It does so through a signal of its own,
STOP_WORKFLOW, whose handler raises KeyboardInterrupt, not SIGINT: a shell starts a background job with SIGINT
ignored, and Python then leaves it so. The looks at the accounting database come every INTERVAL_SECONDS, or every
$SNAKEBERT_REQUEUE_WATCH_SECONDS (a positive number) where it is set."""

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from datetime import datetime

from .config_validation import ConfigError

INTERVAL_SECONDS = 30  # between two looks at the accounting database, unless INTERVAL_VARIABLE says otherwise
INTERVAL_VARIABLE = "SNAKEBERT_REQUEUE_WATCH_SECONDS"
REFUSALS = 3  # looks in a row at which SLURM refuses a job's requeue before the workflow stops
STOP_WORKFLOW = signal.SIGUSR2


def preempted_jobs(workdir: str, since: datetime) -> list[str]:
    """The IDs of this user's SLURM jobs, submitted from `workdir` since `since`, that ended PREEMPTED (none while
    the accounting database does not answer)."""
    start = f"{since:%Y-%m-%dT%H:%M:%S}"  # sacct's time format, which its times compare in as strings
    fields = "JobIdRaw,State,Submit,WorkDir"
    command = ["sacct", "--allocations", "--noheader", "--parsable2", f"--user={os.getuid()}", f"--format={fields}"]
    command.append(f"--starttime={start}")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    except (OSError, subprocess.SubprocessError):  # the next look asks again
        return []
    jobs = []
    for line in done.stdout.splitlines():
        job, state, submitted, folder = line.split("|", 3)
        if state == "PREEMPTED" and folder == workdir and submitted >= start:
            jobs.append(job)
    return jobs


def requeue(job: str) -> str | None:
    """Requeue SLURM job `job`: None, or why SLURM refused."""
    try:
        done = subprocess.run(["scontrol", "requeue", job], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as error:
        return str(error)
    return None if done.returncode == 0 else done.stderr.strip() or f"scontrol's exit status {done.returncode}"


def interval_seconds() -> float:
    """The seconds between two looks: $SNAKEBERT_REQUEUE_WATCH_SECONDS, else INTERVAL_SECONDS."""
    value = os.environ.get(INTERVAL_VARIABLE)
    if value is None:
        return INTERVAL_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise ConfigError(f"{INTERVAL_VARIABLE}={value!r}: the seconds between two looks must be a positive number")
    return seconds


def watch(workdir: str, since: datetime, say: Callable[[str], None], interval: float) -> None:
    """Requeue the preempted jobs submitted from `workdir` since `since`, looking every `interval` seconds and
    telling `say`, until SLURM refuses one REFUSALS times in a row; then stop this process's workflow."""
    refused = {}
    while True:
        time.sleep(interval)
        for job in preempted_jobs(workdir, since):
            reason = requeue(job)
            if reason is None:
                refused.pop(job, None)
                say(
                    f"SLURM job {job} was preempted and cancelled: requeued it (scontrol requeue {job}); it runs again "
                    "once SLURM releases it, and pretrain resumes from its newest checkpoint"
                )
                continue
            refused[job] = refused.get(job, 0) + 1
            if refused[job] == REFUSALS:
                say(
                    f"SLURM job {job} was preempted and cancelled, and SLURM refuses to requeue it: {reason}. "
                    "Stopping the workflow, which would wait for that job forever: run it again to resume from the "
                    "newest checkpoint (or let the profile's slurm-requeue submit requeueable jobs)"
                )
                os.kill(os.getpid(), STOP_WORKFLOW)
                return


def stop_workflow(number: int, frame) -> None:
    raise KeyboardInterrupt  # snakemake's way out on a Ctrl-C: it cancels its jobs and exits non-zero


def start_watching(workdir: str, say: Callable[[str], None], interval: float) -> None:
    """Watch the SLURM jobs submitted from `workdir` from now on, every `interval` seconds, in a thread of this
    process (it ends with it). Called in the main thread, which alone may set the handler of STOP_WORKFLOW;
    `interval` is interval_seconds(), read as the workflow is parsed."""
    if shutil.which("sacct") is None or shutil.which("scontrol") is None:
        say("no sacct or scontrol on this host: a job preempted without a grace time is not requeued")
        return
    signal.signal(STOP_WORKFLOW, stop_workflow)
    watching = (workdir, datetime.now(), say, interval)
    threading.Thread(target=watch, args=watching, daemon=True, name="slurm-requeue").start()
