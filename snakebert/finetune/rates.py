"""The learning rate each model is reported at: the rate of the task's grid whose median validation score on the main
metric is best over the search's seeds (an undefined score counts as the worst; the first rate in the grid's order on
ties). A rate at which a search run diverged (its training loss or its outputs not finite: divergence.py) is never
chosen, and a grid whose every rate diverged is refused, naming the rates: no score of it means anything. Only
validation scores enter the choice, so the test split cannot move it."""

import math

from ..errors import DataError
from .chosen_file import ChosenRate, RateTried
from .metrics import spread
from .run_file import RunResult, read_run
from .task_file import read_task_file


def validation_medians(runs: list[RunResult], metric: str) -> dict[float, float | None]:
    """{rate: median validation score} of one model's search runs, in the order the rates come."""
    by_rate: dict[float, list] = {}
    for run in runs:
        by_rate.setdefault(run.learning_rate, []).append(run.validation[metric])
    return {rate: (spread(values) or {"median": None})["median"] for rate, values in by_rate.items()}


def diverged_runs(runs: list[RunResult]) -> dict[float, list[RunResult]]:
    """{rate: the runs that diverged at it}, the rates in the order the runs come."""
    found: dict[float, list[RunResult]] = {}
    for run in runs:
        if run.diverged:
            found.setdefault(run.learning_rate, []).append(run)
    return found


def chosen_rate(runs: list[RunResult], grid: list[float], metric: str, who: str = "the model") -> float:
    """The rate `runs` (the search runs of the model `who` names, every rate of `grid`) choose on validation."""
    medians = validation_medians(runs, metric)
    missing = [rate for rate in grid if rate not in medians]
    if missing:
        raise DataError(f"the learning-rate search has no run at {', '.join(map(str, missing))} (grid {grid})")
    diverged = diverged_runs(runs)
    usable = [rate for rate in grid if rate not in diverged]
    if not usable:
        rates = ", ".join(f"{rate:g}" for rate in grid)
        first = diverged[grid[0]][0]
        raise DataError(
            f"{who}: fine-tuning diverged at every learning rate of the grid ({rates}; at {grid[0]:g}, seed "
            f"{first.seed}: {first.diverged}), so no rate has a score to report: lower the rates "
            "(finetune.recipe.learning_rate, or the task's recipe) and rerun"
        )
    return max(usable, key=lambda rate: -math.inf if medians[rate] is None else medians[rate])


def rate_search(runs: list[RunResult], grid: list[float], metric: str, who: str) -> ChosenRate:
    """The rate a model's search runs (every rate of `grid`, by the model `who` names) choose, with each rate's median
    validation score, its runs and how many of them diverged."""
    rate = chosen_rate(runs, grid, metric, who)
    medians, diverged = validation_medians(runs, metric), diverged_runs(runs)
    tried = [run.learning_rate for run in runs]
    search = tuple(RateTried(each, medians[each], tried.count(each), len(diverged.get(each, []))) for each in grid)
    return ChosenRate(runs[0].model, metric, rate, search)


def choose_rate(task_file: str, search_files: list[str], grid: list[float]) -> ChosenRate:
    """rate_search of one model's search runs (`search_files`) on the task of `task_file` (its main metric)."""
    task = read_task_file(task_file)
    runs = [read_run(path) for path in search_files]
    return rate_search(runs, grid, task.main_metric, f"finetune task {task.task!r}, model {runs[0].model!r}")
