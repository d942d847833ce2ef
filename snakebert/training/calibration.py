"""The time and cost of a pretraining run, known before it starts: a short burst of real training steps with the
run's launcher, model, data and settings, timed after a warm-up, and projected to `pretrain.max_steps`.

The burst trains `warmup_steps` (graph compilation, caches), evaluates once (the evaluation's own warm-up), then
trains `steps` more, and evaluates and saves a checkpoint once each (the checkpoint is then deleted). The clock is
read after the device finished its queued work, so that lazy or asynchronous devices are timed when they are done,
not when work was queued."""

import json
import shutil
import time
from dataclasses import replace
from datetime import timedelta

import torch
from transformers import TrainerCallback

from ..atomic import write_json
from .job import TrainingJob
from .pretrain import prepare_run
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


def project(marks: dict, started: float, burst: dict, settings: dict, global_batch: int, nodes: int, price) -> dict:
    """The projection of a `settings["max_steps"]` run from the burst's marks (BurstClock), `started` the time the
    job began, `burst` its {warmup_steps, steps}; `price` per node-hour, or None."""
    warmup, steps, max_steps = burst["warmup_steps"], burst["steps"], settings["max_steps"]
    end = warmup + steps
    step_seconds = (marks[f"step_{end}"] - marks[f"evaluated_{warmup}"]) / steps
    evaluation_seconds = marks[f"evaluated_{end}"] - marks[f"step_{end}"]
    checkpoint_seconds = marks["saved"] - marks[f"evaluated_{end}"]
    warmup_seconds = marks[f"evaluated_{warmup}"] - marks["train_begin"]  # with the first evaluation's warm-up
    evaluations, checkpoints = max_steps // settings["eval_steps"], max_steps // settings["save_steps"]
    train_seconds = (
        warmup_seconds
        + max(max_steps - warmup, 0) * step_seconds
        + max(evaluations - 1, 0) * evaluation_seconds
        + checkpoints * checkpoint_seconds
    )
    startup_seconds = marks["train_begin"] - started
    wall_seconds = startup_seconds + train_seconds
    hours = wall_seconds / 3600
    return {
        "nodes": nodes,
        "global_batch_size": global_batch,
        "warmup_steps": warmup,
        "measured_steps": steps,
        "samples_per_second": global_batch / step_seconds,
        "seconds_per_step": step_seconds,
        "startup_seconds": startup_seconds,
        "warmup_seconds": warmup_seconds,
        "seconds_per_evaluation": evaluation_seconds,
        "seconds_per_checkpoint": checkpoint_seconds,
        "max_steps": max_steps,
        "evaluations": evaluations,
        "checkpoints": checkpoints,
        "projected_train_seconds": train_seconds,
        "projected_wall_seconds": wall_seconds,
        "projected_wall_time": str(timedelta(seconds=round(wall_seconds))),
        "price_per_node_hour": price,
        "projected_node_hours": hours * nodes,
        "projected_cost": None if price is None else hours * nodes * price,
    }


def calibrate(job: TrainingJob, out: str, burst: dict, nodes: int = 1, started: float | None = None) -> dict:
    """Run the burst of `job` and write the projection to `out` (JSON); `burst`: the `calibrate` config; `started`:
    the job's start (time.monotonic; default now)."""
    started = time.monotonic() if started is None else started
    beyond = burst["warmup_steps"] + burst["steps"] + 1  # the run's own evaluations and saves never come
    settings = {**job.settings, "max_steps": beyond - 1, "eval_steps": beyond, "save_steps": beyond}
    run = prepare_run(replace(job, settings=settings), resume=False)
    clock = BurstClock(burst["warmup_steps"], burst["steps"])
    run.trainer.add_callback(clock)
    run.trainer.train()
    run.trainer.accelerator.wait_for_everyone()  # every rank has saved its part of the checkpoint
    if run.trainer.is_world_process_zero():
        shutil.rmtree(run.trainer.args.output_dir)  # the burst's checkpoint was saved to be timed, not kept
    global_batch = global_batch_size(run.trainer.args)
    result = {
        "backend": job.backend,
        "world_size": run.trainer.args.world_size,
        **project(clock.marks, started, burst, job.settings, global_batch, nodes, burst["price_per_node_hour"]),
    }
    print(json.dumps(result, indent=1), flush=True)
    if run.trainer.is_world_process_zero():
        write_json(out, result)
    return result
