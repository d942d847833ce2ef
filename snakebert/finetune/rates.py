"""The learning rate each model is reported at: the rate of the task's grid whose median validation score on the main
metric is best over the search's seeds (an undefined score counts as the worst; the first rate in the grid's order on
ties). Only validation scores enter the choice, so the test split cannot move it."""

import math

from ..errors import DataError
from .metrics import spread


def validation_medians(runs: list[dict], metric: str) -> dict[float, float | None]:
    """{rate: median validation score} of one model's search runs, in the order the rates come."""
    by_rate: dict[float, list] = {}
    for run in runs:
        by_rate.setdefault(run["recipe"]["learning_rate"], []).append(run["validation"][metric])
    return {rate: (spread(values) or {"median": None})["median"] for rate, values in by_rate.items()}


def chosen_rate(runs: list[dict], grid: list[float], metric: str) -> float:
    """The rate `runs` (one model's search runs, every rate of `grid`) choose on validation."""
    medians = validation_medians(runs, metric)
    missing = [rate for rate in grid if rate not in medians]
    if missing:
        raise DataError(f"the learning-rate search has no run at {', '.join(map(str, missing))} (grid {grid})")
    return max(grid, key=lambda rate: -math.inf if medians[rate] is None else medians[rate])
