"""Training speed measured inside the trainer: steps/s after a warm-up, without the set-up before the first step
or the evaluation and checkpoint the trainer makes after the last."""

import time

from transformers import TrainerCallback

from snakebert.training.calibration import synchronize


class StepClock(TrainerCallback):
    """The time at the end of step `warmup` and at the end of the last step (the device synchronised first)."""

    def __init__(self, warmup: int) -> None:
        self.warmup, self.times = warmup, {}

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step in (self.warmup, state.max_steps):
            synchronize(args.device)
            self.times[state.global_step] = time.perf_counter()

    def seconds(self) -> float:
        """From the end of the warm-up to the end of the last step."""
        return self.times[max(self.times)] - self.times[self.warmup]

    def steps_per_second(self) -> float:
        return (max(self.times) - self.warmup) / self.seconds()
