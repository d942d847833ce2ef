"""The downstream problems, one table: what differs between a class per text (or text pair) and a number, as data and
small functions, so that everything else (splits, rates, seeds, folds, both protocols, the bootstrap, the verdicts) is
one path for every problem. Adding a problem is an entry in PROBLEMS, its name in the schema's `problem` enum and its
tests (tests/unit/test_tables.py checks that the enum equals the keys). The workflow's parse checks a task's metrics
against its problem, so this module stays light: scikit-learn is imported by the functions that fit."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .examples import LABEL, LabelReader, class_labels, number_labels
from .metrics import CLASS_METRICS, NUMBER_METRICS, scores

DEFAULT_PROBLEM = "classification"  # the problem of a task (or preset) that names none


@dataclass(frozen=True)
class Problem:
    """What one problem brings: its metrics, how its labels are read, prepared and counted, its model's head and how
    the head's outputs become predictions and scores, and its baselines' models. The functions that take the class
    names (a task's `labels`) are given None for a problem without classes."""

    default_metrics: tuple[str, ...]  # a task's metrics where it names none; the first chooses the best epoch
    metrics: tuple[str, ...]  # the metrics that measure it (metrics.py)
    fitting_metrics: str  # those metrics, as an error names them
    classes: bool  # labels name classes: prepared as ids, none held out that train lacks, counted in a run's answers
    stratified: bool  # carved splits and folds keep each class's groups in proportion (splits.py)
    labels: LabelReader  # a label column, read and checked (examples.py)
    encoded: Callable[[pa.Table, list[str] | None], pa.Table]  # a split with its labels as prepared
    counted: Callable[[np.ndarray, list[str] | None], dict]  # what task.json says of a split's prepared labels
    head: str  # the transformers Auto class a run fine-tunes
    head_config: Callable[[list[str] | None], dict]  # the arguments its config takes
    predicted: Callable  # a run's outputs (a tensor of logits) as its predictions
    scores: Callable[[list[str], np.ndarray, np.ndarray, list[str] | None], dict]  # metrics, truth, predictions
    majority: Callable[[np.ndarray, list[str] | None], int | float]  # the majority baseline's answer to every example
    linear_model: Callable[[float], object]  # TF-IDF's and the linear probe's scikit-learn model at a strength


def _class_ids(table: pa.Table, names: list[str]) -> pa.Table:
    """Class names as their ids (the index in `names`)."""
    ids = pc.index_in(table.column(LABEL), value_set=pa.array(names, pa.string())).cast(pa.int64())
    return table.set_column(table.column_names.index(LABEL), LABEL, ids)


def _as_read(table: pa.Table, names: None) -> pa.Table:
    return table


def _class_counts(labels: np.ndarray, names: list[str]) -> dict:
    found = np.bincount(labels, minlength=len(names))  # one pass, whatever the number of classes
    return {"class_counts": {name: int(count) for name, count in zip(names, found, strict=True)}}


def _label_spread(labels: np.ndarray, names: None) -> dict:
    return {"label_mean": float(labels.mean()), "label_std": float(labels.std())}


def _class_head(names: list[str]) -> dict:
    return {
        "num_labels": len(names),
        "problem_type": "single_label_classification",
        "id2label": dict(enumerate(names)),
        "label2id": {name: index for index, name in enumerate(names)},
    }


def _number_head(names: None) -> dict:
    return {"num_labels": 1, "problem_type": "regression"}


def _highest(logits):
    """The class of each example's highest logit."""
    return logits.argmax(-1)


def _flattened(logits):
    """Each example's one output."""
    return logits.reshape(-1)


def _class_scores(metrics: list[str], truth: np.ndarray, predicted: np.ndarray, names: list[str]) -> dict:
    return scores(metrics, truth, predicted, len(names))


def _number_scores(metrics: list[str], truth: np.ndarray, predicted: np.ndarray, names: None) -> dict:
    return scores(metrics, truth, predicted, 0)


def _most_frequent(train: np.ndarray, names: list[str]) -> int:
    """The most frequent class (the first of the tied ones)."""
    return int(np.bincount(train, minlength=len(names)).argmax())


def _mean(train: np.ndarray, names: None) -> float:
    return float(train.mean())


def _logistic(strength: float):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=strength, max_iter=2000)


def _ridge(strength: float):
    """Ridge regression, its alpha the inverse of the strength (as logistic regression's C)."""
    from sklearn.linear_model import Ridge

    return Ridge(alpha=1.0 / strength)


NUMBERS = " or ".join(NUMBER_METRICS)
PROBLEMS = {
    "classification": Problem(
        default_metrics=("macro_f1", "accuracy"),
        metrics=tuple(CLASS_METRICS),
        fitting_metrics=f"a metric of classes (any but {NUMBERS})",
        classes=True,
        stratified=True,
        labels=class_labels,
        encoded=_class_ids,
        counted=_class_counts,
        head="AutoModelForSequenceClassification",
        head_config=_class_head,
        predicted=_highest,
        scores=_class_scores,
        majority=_most_frequent,
        linear_model=_logistic,
    ),
    "regression": Problem(
        default_metrics=("pearson", "spearman"),
        metrics=tuple(NUMBER_METRICS),
        fitting_metrics=NUMBERS,
        classes=False,
        stratified=False,
        labels=number_labels,
        encoded=_as_read,
        counted=_label_spread,
        head="AutoModelForSequenceClassification",
        head_config=_number_head,
        predicted=_flattened,
        scores=_number_scores,
        majority=_mean,
        linear_model=_ridge,
    ),
}
