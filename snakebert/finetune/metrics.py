"""The task metrics, one table: scikit-learn's and scipy's implementations on label ids (classes) or numbers; and a
score's spread over seeds."""

import math
import statistics
from collections.abc import Callable

import numpy as np
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

Metric = Callable[[np.ndarray, np.ndarray, int], float]  # (truth, predictions, number of classes) -> score


def _macro_f1(truth, predicted, classes):
    return f1_score(truth, predicted, average="macro", labels=list(range(classes)), zero_division=0)


METRICS: dict[str, Metric] = {
    "accuracy": lambda truth, predicted, classes: accuracy_score(truth, predicted),
    "macro_f1": _macro_f1,
    "f1": lambda truth, predicted, classes: f1_score(truth, predicted, average="binary", zero_division=0),
    "matthews": lambda truth, predicted, classes: matthews_corrcoef(truth, predicted),
    "pearson": lambda truth, predicted, classes: pearsonr(truth, predicted).statistic,
    "spearman": lambda truth, predicted, classes: spearmanr(truth, predicted).statistic,
}
DEFAULT_METRICS = {"classification": ["macro_f1", "accuracy"], "regression": ["pearson", "spearman"]}


def scores(names: list[str], truth: np.ndarray, predicted: np.ndarray, classes: int) -> dict[str, float | None]:
    """{metric: score}; a score that is not defined (a correlation with constant predictions) is None."""
    found = {}
    for name in names:
        value = float(METRICS[name](truth, predicted, classes))
        found[name] = value if math.isfinite(value) else None
    return found


def spread(values: list[float | None]) -> dict | None:
    """Median, min and max of the defined values (None if none is)."""
    defined = [value for value in values if value is not None]
    if not defined:
        return None
    return {"median": statistics.median(defined), "min": min(defined), "max": max(defined), "runs": len(defined)}
