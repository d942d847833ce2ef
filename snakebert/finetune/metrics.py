"""The task metrics, one table: for classes, from the confusion counts of label ids (the values of scikit-learn's
accuracy_score, f1_score with zero_division=np.nan and matthews_corrcoef, to the last bits of a float: the unit tests
check it), so that the bootstrap's thousand resamples cost milliseconds; for a number, scipy's correlations. And a
score's spread over seeds.

A score that is not defined is None, never 0: the F1 of a class that is neither true nor predicted (2 TP + FP + FN is
0), so the `f1` of a binary task whose second class is absent from truth and predictions alike; macro-F1 averages the
classes that are defined (scikit-learn's nan-skipping average, which equals its default of the labels present in truth
or predictions) and is undefined only where none is; Matthews' correlation where every example is true of one class or
every prediction is one class (its denominator is 0: scikit-learn returns 0 there, which a collapsed classifier does not
earn); a correlation of fewer than 2 examples or of a constant."""

import math
import statistics
from collections.abc import Callable

import numpy as np

from .squad_metrics import QA_METRICS
from .tag_metrics import TAG_METRICS


def confusion(truth: np.ndarray, predicted: np.ndarray, classes: int) -> np.ndarray:
    """How many examples of each true class (rows) got each predicted class (columns)."""
    cells = np.asarray(truth, dtype=np.int64) * classes + np.asarray(predicted, dtype=np.int64)
    return np.bincount(cells, minlength=classes * classes).reshape(classes, classes)


def _f1_by_class(counts: np.ndarray) -> np.ndarray:
    """2 TP / (2 TP + FP + FN) of each class, nan for a class neither true nor predicted anywhere."""
    hits, marked = 2.0 * np.diag(counts), counts.sum(0) + counts.sum(1)
    return np.divide(hits, marked, out=np.full(len(hits), np.nan), where=marked > 0)


def _macro_f1(counts: np.ndarray) -> float:
    """The mean F1 of the classes whose F1 is defined (nan if none is)."""
    defined = _f1_by_class(counts)
    defined = defined[~np.isnan(defined)]
    return float(defined.mean()) if len(defined) else math.nan


def _matthews(counts: np.ndarray) -> float:
    true, guessed = counts.sum(1), counts.sum(0)
    total, right = int(true.sum()), int(np.trace(counts))
    spread = float(total * total - guessed @ guessed) * float(total * total - true @ true)
    return math.nan if spread == 0 else float(right * total - true @ guessed) / math.sqrt(spread)


CLASS_METRICS: dict[str, Callable[[np.ndarray], float]] = {  # from the confusion counts; nan where undefined
    "accuracy": lambda counts: np.trace(counts) / counts.sum(),
    "macro_f1": _macro_f1,
    "f1": lambda counts: _f1_by_class(counts)[1],  # of the second class (binary tasks)
    "matthews": _matthews,
}


def _pearson(truth: np.ndarray, predicted: np.ndarray) -> float:
    from scipy.stats import pearsonr  # imported by a regression task alone: scipy.stats costs every job half a second

    return pearsonr(truth, predicted).statistic if len(truth) > 1 else math.nan  # pearsonr refuses one example


def _spearman(truth: np.ndarray, predicted: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return spearmanr(truth, predicted).statistic if len(truth) > 1 else math.nan


NUMBER_METRICS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {"pearson": _pearson, "spearman": _spearman}
METRICS = (*CLASS_METRICS, *NUMBER_METRICS, *TAG_METRICS, *QA_METRICS)  # every metric's name, as the schema lists them


def scores(names: list[str], truth: np.ndarray, predicted: np.ndarray, classes: int) -> dict[str, float | None]:
    """{metric: score}; a score that is not defined (module docstring), or not finite, is None."""
    counts = confusion(truth, predicted, classes) if classes else None
    found = {}
    for name in names:
        value = float(CLASS_METRICS[name](counts) if name in CLASS_METRICS else NUMBER_METRICS[name](truth, predicted))
        found[name] = value if math.isfinite(value) else None
    return found


NO_SPREAD = {"median": None, "min": None, "max": None, "runs": 0}  # spread's keys where no value is defined


def spread(values: list[float | None]) -> dict | None:
    """Median, min and max of the defined values (None if none is)."""
    defined = [value for value in values if value is not None]
    if not defined:
        return None
    return {"median": statistics.median(defined), "min": min(defined), "max": max(defined), "runs": len(defined)}
