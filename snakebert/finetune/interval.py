"""The 95% interval of a difference in a task's main score between two models on the reported split: a paired
bootstrap over the split's groups (speeches for the embedded task, the task's `group_column`, or rows), the
fine-tuning seeds resampled too. Each resample draws the groups with replacement and one seed rank; every model is
scored on the same rows, with its run of that rank (the fine-tuned models run the same seeds, and a pretrained model
and random initialisation of one seed start from the same head and data order; a baseline has one run). The draws
come from a fixed seed, so the same predictions give the same interval, byte for byte."""

from collections.abc import Callable

import numpy as np

from .splits import group_numbers

LEVEL = 0.95
RESAMPLES = 1000
DRAWS_SEED = 0
NOT_SHOWN = "not shown at this test size"

Score = Callable[[np.ndarray, np.ndarray], float | None]  # (truth, predictions) -> score, None where undefined


def group_members(groups: np.ndarray) -> list[np.ndarray]:
    """The row numbers of each group, the groups in order of first appearance."""
    numbers, first = group_numbers(groups)
    return [np.flatnonzero(numbers == group) for group in range(len(first))]


def resampled_scores(
    score: Score,
    truth: np.ndarray,
    groups: np.ndarray,
    runs: dict[str, list[np.ndarray]],
    resamples: int = RESAMPLES,
    seed: int = DRAWS_SEED,
) -> dict[str, np.ndarray]:
    """Each model's score on the same `resamples` bootstrap resamples (nan where it is undefined); `runs` maps each
    model to its runs' predictions on the split, in seed order."""
    members = group_members(groups)
    draws = np.random.default_rng(seed)
    found = {name: np.empty(resamples) for name in runs}
    for resample in range(resamples):
        rows = np.concatenate([members[group] for group in draws.integers(0, len(members), len(members))])
        rank = draws.random()
        for name, predictions in runs.items():
            value = score(truth[rows], predictions[int(rank * len(predictions))][rows])
            found[name][resample] = np.nan if value is None else value
    return found


def difference_interval(first: np.ndarray, second: np.ndarray, level: float = LEVEL) -> tuple[float, float] | None:
    """The central `level` interval of `first - second` over the resamples where both are defined (values drawn, not
    interpolated); None if there is none."""
    differences = first - second
    differences = differences[~np.isnan(differences)]
    if len(differences) == 0:
        return None
    tail = (1 - level) / 2
    low, high = np.quantile(differences, [tail, 1 - tail], method="inverted_cdf")
    return float(low), float(high)


def verdict(interval: tuple[float, float] | None) -> str:
    """ "yes" when the whole interval lies above 0, "no" when below it, and otherwise that this test cannot tell."""
    if interval is None:
        return NOT_SHOWN
    if interval[0] > 0:
        return "yes"
    if interval[1] < 0:
        return "no"
    return NOT_SHOWN
