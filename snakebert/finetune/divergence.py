"""A fine-tuning run that diverged: its training loss, or its outputs on a held-out split, not finite (a learning rate
too large, as 1e30 is). Such a run records why instead of scores, its training stops at the first epoch whose loss is
not finite (training/divergence.py's callback, watching LOSS_KEYS), and neither the rate search (rates.py) nor the
summary ever takes it for a result. The trainer logs each epoch's mean loss unfiltered (`logging_nan_inf_filter` off:
the filter would replace a step's nan by the mean of the others), so one step's nan or inf reaches the epoch's logged
loss."""

import math

import numpy as np

LOSS_KEYS = ("loss", "train_loss")  # the trainer's logged training losses: each epoch's, then the run's


def loss_divergence(log_history: list[dict]) -> str | None:
    """Why the run diverged, from the trainer's log: the first training loss that is not finite (None if none)."""
    for entry in log_history:
        for key in LOSS_KEYS:
            if key in entry and not math.isfinite(entry[key]):
                return f"training loss {entry[key]} in epoch {math.ceil(entry['epoch'])}"
    return None


def output_divergence(logits: dict[str, np.ndarray]) -> str | None:
    """Why the run diverged, from its outputs on each held-out split: the first split whose outputs are not all finite
    (None if every one is)."""
    for split, found in logits.items():
        bad = int((~np.isfinite(np.asarray(found))).reshape(len(found), -1).any(axis=1).sum()) if np.size(found) else 0
        if bad:
            return f"outputs not finite on {bad} of {len(found)} {split} examples"
    return None
