"""The time and cost of a pretraining run, known before it starts: a short burst of real training steps with the
run's launcher, model, data and settings, timed after a warm-up, and projected to `pretrain.max_steps`.

Each phase gets a burst of its own (its block size and batch are other graphs): it trains `warmup_steps` (graph
compilation, caches), evaluates once (the evaluation's own warm-up), then trains `steps` more, and evaluates and
saves a checkpoint once each (the checkpoint is then deleted). The run's projection adds up its phases'. The clock is
read after the device finished its queued work, so that lazy or asynchronous devices are timed when they are done,
not when work was queued."""

import json
import shutil
import time
from dataclasses import replace
from datetime import timedelta

import torch
from transformers import TrainerCallback

from ..files.json_views import as_json
from .backends import rank
from .calibration_file import Calibration, PhaseProjection, write_calibration
from .job import TrainingJob
from .phases import Phase
from .pretrain import phase_trainer, prepare_run
from .trainers import global_batch_size


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work (torch.cuda, torch.hpu once Habana's plugin is loaded, torch.cpu)."""
    module = getattr(torch, device.type, None)
    if hasattr(module, "synchronize"):
        module.synchronize()


class BurstClock(TrainerCallback):
    """Marks the times of the burst's events, and asks the trainer for an evaluation after the warm-up and for an
    evaluation and a checkpoint at the end (the run's own evaluation and save cadence lies beyond the burst)."""

    def __init__(self, warmup_steps: int, steps: int) -> None:
        self.warmup_steps = warmup_steps
        self.last_step = warmup_steps + steps
        self.marks: dict[str, float] = {}

    def mark(self, name: str, args) -> None:
        synchronize(args.device)
        self.marks[name] = time.monotonic()

    def on_train_begin(self, args, state, control, **kwargs):
        self.mark("train_begin", args)

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step in (self.warmup_steps, self.last_step):
            self.mark(f"step_{state.global_step}", args)
            control.should_evaluate = True
            control.should_save = state.global_step == self.last_step

    def on_evaluate(self, args, state, control, **kwargs):
        self.mark(f"evaluated_{state.global_step}", args)

    def on_save(self, args, state, control, **kwargs):
        self.mark("saved", args)


def project(
    marks: dict,
    started: float,
    burst: dict,
    settings: dict,
    nodes: int,
    price,
    span: tuple[int, int] | None = None,
    *,
    phase: int,
    block_size: int,
    backend: str,
    world_size: int,
    global_batch_size: int,
) -> PhaseProjection:
    """The projection of the run's steps `span` (after step first, up to step last; default: all of
    `settings["max_steps"]`) from the burst's marks (BurstClock), `started` the time the job (or the phase) began,
    `burst` its {warmup_steps, steps}; `price` per node-hour, or None; the phase's launch by name."""
    first, last = span or (0, settings["max_steps"])
    warmup, steps, max_steps = burst["warmup_steps"], burst["steps"], last - first
    end = warmup + steps
    step_seconds = (marks[f"step_{end}"] - marks[f"evaluated_{warmup}"]) / steps
    evaluation_seconds = marks[f"evaluated_{end}"] - marks[f"step_{end}"]
    checkpoint_seconds = marks["saved"] - marks[f"evaluated_{end}"]
    warmup_seconds = marks[f"evaluated_{warmup}"] - marks["train_begin"]  # with the first evaluation's warm-up
    evaluations = last // settings["eval_steps"] - first // settings["eval_steps"]
    checkpoints = last // settings["save_steps"] - first // settings["save_steps"]
    train_seconds = (
        warmup_seconds
        + max(max_steps - warmup, 0) * step_seconds
        + max(evaluations - 1, 0) * evaluation_seconds
        + checkpoints * checkpoint_seconds
    )
    return PhaseProjection(
        phase=phase,
        block_size=block_size,
        backend=backend,
        world_size=world_size,
        global_batch_size=global_batch_size,
        warmup_steps=warmup,
        measured_steps=steps,
        samples_per_second=global_batch_size / step_seconds,
        seconds_per_step=step_seconds,
        warmup_seconds=warmup_seconds,
        seconds_per_evaluation=evaluation_seconds,
        seconds_per_checkpoint=checkpoint_seconds,
        max_steps=max_steps,
        evaluations=evaluations,
        checkpoints=checkpoints,
        **totals(marks["train_begin"] - started, train_seconds, nodes, price),
    )


def totals(startup_seconds: float, train_seconds: float, nodes: int, price) -> dict:
    """The projected time, node-hours and cost of `train_seconds` of training after `startup_seconds`, as the
    projection's fields by name."""
    wall_seconds = startup_seconds + train_seconds
    hours = wall_seconds / 3600
    return dict(
        nodes=nodes,
        startup_seconds=startup_seconds,
        projected_train_seconds=train_seconds,
        projected_wall_seconds=wall_seconds,
        projected_wall_time=str(timedelta(seconds=round(wall_seconds))),
        price_per_node_hour=price,
        projected_node_hours=hours * nodes,
        projected_cost=None if price is None else hours * nodes * price,
    )


def combined(phases: list[PhaseProjection], nodes: int, price) -> Calibration:
    """The run's projection from its phases' (with the time of the samples of each phase's steps)."""
    steps = sum(phase.max_steps for phase in phases)
    step_seconds = sum(phase.max_steps * phase.seconds_per_step for phase in phases)
    samples = sum(phase.max_steps * phase.global_batch_size for phase in phases)
    startup = sum(phase.startup_seconds for phase in phases)
    train = sum(phase.projected_train_seconds for phase in phases)
    run = replace(
        phases[-1],
        max_steps=steps,
        samples_per_second=samples / step_seconds,
        seconds_per_step=step_seconds / steps,
        evaluations=sum(phase.evaluations for phase in phases),
        checkpoints=sum(phase.checkpoints for phase in phases),
        **totals(startup, train, nodes, price),
    )
    return Calibration(**vars(run), phases=tuple(phases))


def burst(run, phase: Phase, calibration: dict, nodes: int, started: float) -> PhaseProjection:
    """Time a burst of `phase`'s training (a run of its own: its checkpoint is deleted) and project the phase."""
    length = calibration["warmup_steps"] + calibration["steps"]
    beyond = length + 1  # the run's own evaluations and saves never come
    settings = {**run.settings, "max_steps": length, "eval_steps": beyond, "save_steps": beyond}
    trainer = phase_trainer(replace(run, settings=settings), replace(phase, start=0, steps=length))
    clock = BurstClock(calibration["warmup_steps"], calibration["steps"])
    trainer.add_callback(clock)
    trainer.train()
    trainer.accelerator.wait_for_everyone()  # every rank has saved its part of the checkpoint
    if trainer.is_world_process_zero():
        shutil.rmtree(trainer.args.output_dir)  # the burst's checkpoint was saved to be timed, not kept
    return project(
        clock.marks,
        started,
        calibration,
        run.settings,
        nodes,
        calibration["price_per_node_hour"],
        (phase.start, phase.stop),
        phase=phase.number,
        block_size=phase.block_size,
        backend=run.job.backend,
        world_size=trainer.args.world_size,
        global_batch_size=global_batch_size(trainer.args),
    )


def calibrate(
    job: TrainingJob, out: str, calibration: dict, nodes: int = 1, started: float | None = None
) -> Calibration:
    """Run a burst of each phase of `job` and write the projection to `out` (calibration_file.py); `calibration`: the
    `calibrate` config; `started`: the job's start (time.monotonic; default now)."""
    started = time.monotonic() if started is None else started
    run = prepare_run(job)
    phases = []
    for phase in run.phases:  # the first phase's start-up is the job's, a later one's its trainer's
        phases.append(burst(run, phase, calibration, nodes, time.monotonic() if phases else started))
    result = combined(phases, nodes, calibration["price_per_node_hour"])
    print(json.dumps(as_json(result), indent=1), flush=True)
    if rank(job.backend) == 0:
        write_calibration(out, result)
    return result
