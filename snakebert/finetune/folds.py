"""k-fold cross-validation's results pooled (`split.folds`): each model's runs of one seed, one per fold, become one
run on the pooled test split (every example once), their predictions concatenated in fold order and scored anew, so
the summary compares, resamples and judges the folds as it does a single test split. A seed whose run of any fold
diverged is a diverged run, without scores or predictions."""

from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import DataError
from .metrics_file import FoldRun, ReportedRun, entry_of
from .plan import fold_folder, fold_ids
from .prepare import read_split
from .problems import PROBLEMS
from .task_file import TaskFile


def reported_table(task_dir: Path, task: TaskFile) -> pa.Table:
    """The reported split as the summary scores it: the task's, or every fold's test split in fold order."""
    if not task.folds:
        return read_split(str(task_dir), task.reported_split)
    return pa.concat_tables(read_split(str(task_dir / fold_folder(fold)), "test") for fold in fold_ids(task.folds))


def pooled(seed, group: list, task: TaskFile, truth: list, entry=ReportedRun, classes: bool = True) -> tuple:
    """One seed's results (runs, probes or baselines), one per fold, as one `entry` on the pooled test split, with its
    predictions (None: a fold diverged); the classes it predicted counted where `classes` and the problem has classes
    (a fine-tuned run's and a baseline's, not a probe's)."""
    group = sorted(group, key=lambda run: run.fold)
    if [run.fold for run in group] != fold_ids(task.folds):
        raise DataError(
            f"results of {task.task!r}, seed {seed}: folds {[run.fold for run in group]}, expected one run "
            f"of each of folds 1 to {task.folds} (rerun them)"
        )
    problem = PROBLEMS[task.problem]
    folds = [entry_of(FoldRun, run) for run in group]
    counted = classes and problem.classes
    diverged = "; ".join(f"fold {fold.fold}: {fold.diverged}" for fold in folds if fold.diverged)
    if diverged:
        classes_predicted = {"test": None} if counted else None
        failed = dict.fromkeys(task.metrics)
        return entry(
            seed=seed, test=failed, diverged=diverged, classes_predicted=classes_predicted, folds=tuple(folds)
        ), None
    predicted = [answer for run in group for answer in run.predictions]
    classes_predicted = {"test": len(np.unique(problem.answers(predicted)))} if counted else None
    scores = problem.scores(task.metrics, truth, predicted, task)
    return entry(seed=seed, test=scores, classes_predicted=classes_predicted, folds=tuple(folds)), predicted


def pooled_runs(runs: list, task: TaskFile, truth: list, classes: bool = True) -> list[tuple[ReportedRun, list]]:
    """`runs` (one model's results, every fold of each seed) as one run per seed on the pooled test split, with its
    predictions: the predictions concatenated in fold order and scored against `truth`, each fold's own scores kept
    under `folds`."""
    by_seed: dict = {}
    for run in sorted(runs, key=lambda run: run.seed):
        by_seed.setdefault(run.seed, []).append(run)
    return [pooled(seed, group, task, truth, classes=classes) for seed, group in by_seed.items()]
