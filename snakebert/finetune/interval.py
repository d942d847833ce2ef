"""The 95% interval of a difference in a task's main score between two models on the reported split: a paired
bootstrap over the split's groups (speeches for the embedded task, the task's `group_column`, or rows), the
fine-tuning seeds resampled too. Each resample draws the groups with replacement and one seed rank; every model is
scored on the same rows, with its run of that rank (the fine-tuned models run the same seeds, and a pretrained model
and random initialisation of one seed start from the same head and data order; a baseline has one run). The draws
come from a fixed seed, so the same predictions give the same interval, byte for byte.

No interval is shown, and the verdict says why, where the split holds fewer than MIN_GROUPS groups, where no resample
scored both models, or where every resample gave the same difference: a bootstrap that saw no variation has measured
none, so a zero-width interval is never a verdict."""

from collections.abc import Callable

import numpy as np

from .splits import group_numbers

LEVEL = 0.95
RESAMPLES = 1000
DRAWS_SEED = 0
# With 5 groups, even every group favouring one model has a two-sided sign-test p of 2 / 2**5 = 0.0625: no paired
# test of groups can decide at 95% below 6, and a bootstrap of so few groups is narrower than the truth.
MIN_GROUPS = 6
NOT_SHOWN = "not shown at this test size"  # the interval holds 0
NONE_SCORED = "not shown: no resample scored both models"
NO_WIDTH = "not shown: every resample gave the same difference"

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
    model to its runs' predictions on the split, in seed order (None for a run that diverged: nan wherever drawn)."""
    members = group_members(groups)
    draws = np.random.default_rng(seed)
    found = {name: np.empty(resamples) for name in runs}
    for resample in range(resamples):
        rows = np.concatenate([members[group] for group in draws.integers(0, len(members), len(members))])
        rank = draws.random()
        for name, predictions in runs.items():
            run = predictions[int(rank * len(predictions))]
            value = None if run is None else score(truth[rows], run[rows])  # None: a run that diverged
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


def verdict(interval: tuple[float, float]) -> str:
    """ "yes" when the whole interval lies above 0, "no" when below it, and otherwise that this test cannot tell."""
    if interval[0] > 0:
        return "yes"
    if interval[1] < 0:
        return "no"
    return NOT_SHOWN


def too_few_groups(groups: int) -> str:
    return f"not shown: {groups} test group{'' if groups == 1 else 's'}, fewer than {MIN_GROUPS} to resample"


def judged(first: np.ndarray, second: np.ndarray, groups: int) -> dict:
    """The `interval` of `first - second` (the two models' resampled scores over a split of `groups` groups) and its
    `verdict`; no interval, and a verdict that says why, where the resamples cannot give one."""
    if groups < MIN_GROUPS:
        return {"interval": None, "verdict": too_few_groups(groups)}
    interval = difference_interval(first, second)
    if interval is None:
        return {"interval": None, "verdict": NONE_SCORED}
    if interval[0] == interval[1]:
        return {"interval": None, "verdict": NO_WIDTH}
    return {"interval": interval, "verdict": verdict(interval)}
