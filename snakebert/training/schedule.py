"""The learning rate at each step: a linear warm-up to the phase's peak, then a linear or cosine decay to
`final_lr_fraction` of it at the last step (or no decay), over the whole run or restarted in each phase
(`lr_schedule_scope`). A pure function of the step, so a resumed run follows the same curve."""

import math

from .phases import Phase


def shape(step: int, warmup: int, total: int, decay: str, final: float) -> float:
    """The fraction of the peak at `step` of a schedule of `total` steps (transformers' linear schedule when `decay`
    is linear and `final` is 0)."""
    if step < warmup:
        return step / max(1, warmup)
    if decay == "constant":
        return 1.0
    left = max(0.0, (total - step) / max(1, total - warmup))  # 1 after the warm-up, 0 at the last step
    if decay == "cosine":
        left = 0.5 * (1 + math.cos(math.pi * (1 - left)))
    return final + (1 - final) * left


def peak_fraction(step: int, phase: Phase, settings: dict) -> float:
    """The fraction of `phase`'s peak learning rate at the run's `step`, which the phase trains."""
    decay, final = settings["lr_scheduler_type"], settings["final_lr_fraction"]
    if settings["lr_schedule_scope"] == "phase":
        return shape(step - phase.start, phase.warmup_steps, phase.steps, decay, final)
    return shape(step, settings["warmup_steps"], settings["max_steps"], decay, final)
