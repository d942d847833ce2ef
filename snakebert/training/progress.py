"""One line per logging step in the training log, so that `tail -f logs/pretrain.log` tells where a run stands."""

import time
from datetime import timedelta

from transformers import TrainerCallback


def progress_line(step: int, max_steps: int, loss: float, samples_per_second: float, seconds_left: float) -> str:
    left = timedelta(seconds=round(seconds_left))
    return f"step {step}/{max_steps}  loss {loss:.4f}  {samples_per_second:.1f} samples/s  {left} left"


class ProgressLog(TrainerCallback):
    """Prints step/max_steps (the run's, over all phases), loss, samples/s and the projected time left at each
    logging step (main process only). Speed and time left are averaged over this phase's steps so far in this
    job, evaluations included (a later phase of other blocks runs at its own speed)."""

    def __init__(self, global_batch_size: int, max_steps: int) -> None:
        self.global_batch_size = global_batch_size
        self.max_steps = max_steps
        self.start = time.monotonic()
        self.start_step = 0

    def on_train_begin(self, args, state, control, **kwargs):
        self.start = time.monotonic()
        self.start_step = state.global_step

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs:
            return
        if "loss" in logs:
            steps = state.global_step - self.start_step
            seconds = max(time.monotonic() - self.start, 1e-9)
            rate = steps * self.global_batch_size / seconds
            left = (self.max_steps - state.global_step) * seconds / max(steps, 1)
            print(progress_line(state.global_step, self.max_steps, logs["loss"], rate, left), flush=True)
        if "eval_loss" in logs:
            print(f"step {state.global_step}/{self.max_steps}  eval_loss {logs['eval_loss']:.4f}", flush=True)
