"""Training speed measured inside the trainer: steps/s after a warm-up, without the set-up before the first step
or the evaluation and checkpoint the trainer makes after the last; and the interleaved repetitions of the arms a
bench sets side by side, with their ratios."""

import statistics
import time
from collections.abc import Callable, Sequence

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


def interleaved(arms: Sequence[str], repeats: int, measure: Callable[[str], object]) -> dict[str, list]:
    """`measure(arm)` for every arm in each of `repeats` repetitions, the order reversed every other repetition
    (a, b, b, a, ...), so that a drift in the machine's load hits every arm alike. Each arm's results in order."""
    runs = {arm: [] for arm in arms}
    for repetition in range(repeats):
        for arm in arms if repetition % 2 == 0 else arms[::-1]:
            runs[arm].append(measure(arm))
            print(f"repetition {repetition + 1}, {arm}: {runs[arm][-1]}", flush=True)
    return runs


def ratios(numerators: Sequence[float], denominators: Sequence[float]) -> dict:
    """The ratio of each repetition (the arms of one repetition ran side by side), their median and spread."""
    each = [numerator / denominator for numerator, denominator in zip(numerators, denominators, strict=True)]
    return {"per_repetition": each, "median": statistics.median(each), "min": min(each), "max": max(each)}
