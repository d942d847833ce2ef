"""k-fold cross-validation's results pooled (`split.folds`): each model's runs of one seed, one per fold, become one
run on the pooled test split (every example once), their predictions concatenated in fold order and scored anew, so
the summary compares, resamples and judges the folds as it does a single test split. A seed whose run of any fold
diverged is a diverged run, without scores or predictions."""

from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import DataError
from .plan import fold_folder, fold_ids
from .prepare import read_split
from .problems import PROBLEMS
from .task_file import TaskFile

# each fold's entry of a pooled run
FOLD_KEYS = ("fold", "best_epoch", "strength", "no_answer_threshold", "validation", "test", "diverged")


def reported_table(task_dir: Path, task: TaskFile) -> pa.Table:
    """The reported split as the summary scores it: the task's, or every fold's test split in fold order."""
    if not task.folds:
        return read_split(str(task_dir), task.reported_split)
    return pa.concat_tables(read_split(str(task_dir / fold_folder(fold)), "test") for fold in fold_ids(task.folds))


def _pooled(seed, group: list[dict], task: TaskFile, truth: list) -> dict:
    """One seed's runs, one per fold in fold order, as one run on the pooled test split."""
    problem = PROBLEMS[task.problem]
    folds = [{key: run[key] for key in FOLD_KEYS if key in run} for run in group]
    diverged = "; ".join(f"fold {run['fold']}: {run['diverged']}" for run in group if run.get("diverged"))
    if diverged:
        return {"seed": seed, "test": dict.fromkeys(task.metrics), "predictions": None, "diverged": diverged,
                **({"classes_predicted": {"test": None}} if problem.classes else {}), "folds": folds}  # fmt: skip
    predicted = [answer for run in group for answer in run["predictions"]]
    return {
        "seed": seed,
        "test": problem.scores(task.metrics, truth, predicted, task),
        **({"classes_predicted": {"test": len(np.unique(problem.answers(predicted)))}} if problem.classes else {}),
        "predictions": predicted,
        "folds": folds,
    }


def pooled_runs(runs: list[dict], task: TaskFile, truth: list) -> list[dict]:
    """`runs` (one model's, every fold of each seed) as one run per seed on the pooled test split: the predictions
    concatenated in fold order and scored against `truth`, each fold's own scores kept under `folds`."""
    by_seed: dict = {}
    for run in sorted(runs, key=lambda run: (run["seed"] or 0, run["fold"])):
        by_seed.setdefault(run["seed"], []).append(run)
    for seed, group in by_seed.items():
        if [run["fold"] for run in group] != fold_ids(task.folds):
            raise DataError(
                f"results of {task.task!r}, seed {seed}: folds {[run['fold'] for run in group]}, expected one run "
                f"of each of folds 1 to {task.folds} (rerun them)"
            )
    return [_pooled(seed, group, task, truth) for seed, group in by_seed.items()]
