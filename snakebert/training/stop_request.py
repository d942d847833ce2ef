"""A signal is a request to save and stop: SIGTERM (a time limit, preemption, scancel), SIGUSR1 (SLURM's
`--signal`) or SIGINT. The handler only sets a flag (no I/O, no collectives; a second signal sets it again). After
each optimizer step the ranks agree, a max-reduce of their flags on a CPU (gloo) group, so that when any rank was
signalled every rank saves one checkpoint at the same step, through the periodic checkpoints' path, and stops. The
job then exits with errors.STOPPED_EXIT, and a rerun resumes from that checkpoint, bit-identical to an unbroken run.

A deadline does the same without a signal: inside a SLURM job with a time limit, the run stops once the time left is
less than `pretrain.stop_before_deadline` plus one step and one checkpoint save, as measured."""

import os
import signal
import subprocess
import time
from datetime import datetime
from pathlib import Path

import torch
import torch.distributed as dist
from transformers import TrainerCallback

from ..errors import DataError, StoppedOnRequest
from ..stop_signals import STOP_REPORTS, STOP_SIGNALS
from .checkpoints import Segment

DEADLINE = -1  # the agreed flag of a stop at the deadline (a signal's is its number)
UNITS = {"s": 1, "m": 60, "h": 3600}


def job_end_time(environ=os.environ) -> float | None:
    """The Unix time at which SLURM ends this job, None outside a SLURM job or without a time limit:
    SLURM_JOB_END_TIME where SLURM sets it (23.02 on), else squeue's end time of SLURM_JOB_ID."""
    if environ.get("SLURM_JOB_END_TIME"):
        return float(environ["SLURM_JOB_END_TIME"])
    if not environ.get("SLURM_JOB_ID"):
        return None
    command = ["squeue", "--noheader", "--format=%e", "--jobs", environ["SLURM_JOB_ID"]]
    try:
        answer = subprocess.run(command, capture_output=True, text=True, timeout=60).stdout.strip()
        return datetime.fromisoformat(answer).timestamp()  # squeue's local time, as this process's
    except (OSError, subprocess.TimeoutExpired, ValueError):  # no squeue, no answer, or no limit ("N/A")
        return None


class Deadline:
    """When this job has to have saved and stopped: `margin` (pretrain.stop_before_deadline, "15m") before its
    `end` (Unix time; None: no deadline), less one step and one checkpoint save as measured (`segment`)."""

    def __init__(self, margin: str | None, end: float | None, segment: Segment) -> None:
        self.margin = int(margin[:-1]) * UNITS[margin[-1]] if margin else None
        self.end = end if self.margin is not None else None
        self.segment = segment
        if self.end is not None and self.end - time.time() <= self.margin:
            left = max(self.end - time.time(), 0) / 60
            raise DataError(
                f"pretrain.stop_before_deadline is {margin}, and this job ends in {left:.1f} minutes: give the job "
                "more time (the profile's runtime) or set a smaller margin"
            )

    def reached(self, step_seconds: float) -> bool:
        if self.end is None:
            return False
        return time.time() + self.margin + step_seconds + (self.segment.save_seconds or 0) >= self.end


class StopRequest:
    """The signal this process was sent (0: none), set by its handlers while the `with` block runs; the previous
    handlers come back after it."""

    def __init__(self) -> None:
        self.signal = 0
        self.previous = {}

    def __enter__(self) -> "StopRequest":
        self.previous = {number: signal.signal(number, self._handle) for number in STOP_SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)

    def _handle(self, number: int, frame) -> None:
        self.signal = number


class StopOnRequest(TrainerCallback):
    """Ends training after the first optimizer step at which any rank holds a stop request or has reached the
    `deadline`, every rank saving a checkpoint of that step (`stopped_at`, with the agreed flag in `signal`: the
    highest signal number, else DEADLINE)."""

    def __init__(self, request: StopRequest, deadline: Deadline) -> None:
        self.request = request
        self.deadline = deadline
        self.group = None
        self.stopped_at = None
        self.signal = 0
        self.last_step_end = None

    def on_train_begin(self, args, state, control, **kwargs):
        if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
            self.group = dist.new_group(backend="gloo")  # every rank reaches this: a collective of all ranks

    def on_step_end(self, args, state, control, **kwargs):
        now = time.monotonic()
        step_seconds = now - self.last_step_end if self.last_step_end is not None else 0.0
        self.last_step_end = now
        late = self.deadline.reached(step_seconds)
        flags = torch.tensor([self.request.signal, int(late)], dtype=torch.int64)
        if self.group is not None:
            dist.all_reduce(flags, op=dist.ReduceOp.MAX, group=self.group)
        signalled, late = (int(flag) for flag in flags)
        if signalled or late:
            self.stopped_at, self.signal = state.global_step, signalled or DEADLINE
            control.should_save = True
            control.should_training_stop = True
        return control


def stopped(stop: StopOnRequest, checkpoint_folder: str) -> StoppedOnRequest:
    """What a stopped run says, in one line."""
    name = "the job's deadline" if stop.signal == DEADLINE else signal.Signals(stop.signal).name
    return StoppedOnRequest(
        f"stopped on request ({name}) at step {stop.stopped_at}: checkpoint saved in "
        f"{checkpoint_folder}/checkpoint-{stop.stopped_at}; run again to continue from it"
    )


def report_stop(stop: StoppedOnRequest, environ=os.environ) -> StoppedOnRequest:
    """`stop`, after telling the launcher, where it asks (STOP_REPORTS: launch/mpirun.py's, whose own exit status cannot
    say), that this rank stopped on request and what it says."""
    if environ.get(STOP_REPORTS):
        (Path(environ[STOP_REPORTS]) / str(os.getpid())).write_text(str(stop))
    return stop
