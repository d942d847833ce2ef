"""Splits carved out of train where a task gives none, and the folds of k-fold cross-validation: by group (a speech,
a document: no group on both sides), with each class's groups in proportion, drawn from the seed alone. Then the
checks every task's splits pass."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from .examples import GROUP, LABEL


def group_numbers(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's group number, the groups numbered in order of first appearance, and each group's first row."""
    _, first, numbers = np.unique(groups, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[numbers], first[order]


def _group_strata(table: pa.Table, classes: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each row's group number (in order of first appearance), and each group's stratum: its first row's label for
    classes, one stratum for numbers."""
    numbers, first = group_numbers(table.column(GROUP).to_numpy(zero_copy_only=False))
    labels = table.column(LABEL).to_numpy(zero_copy_only=False)
    strata = labels[first] if classes else np.zeros(len(first), dtype=int)
    return numbers, strata


def by_stratum(seed: int, strata: np.ndarray) -> list[np.ndarray]:
    """The groups in an order drawn from `seed`, cut into their strata (in sorted order), each stratum's groups in
    the drawn order: one sort, whatever the number of strata."""
    order = np.random.default_rng(seed).permutation(len(strata))
    ranked = order[np.argsort(strata[order], kind="stable")]
    return np.split(ranked, np.flatnonzero(strata[ranked][1:] != strata[ranked][:-1]) + 1) if len(ranked) else []


def carve(table: pa.Table, fractions: dict[str, float], seed: int, classes: bool) -> dict[str, pa.Table]:
    """`table` cut into the splits of `fractions` ({split: share of each stratum's groups}) and `train`, the rest."""
    group_of_row, strata = _group_strata(table, classes)
    side = np.full(len(strata), "train", dtype=object)
    for chosen in by_stratum(seed, strata):
        start = 0
        for split, fraction in fractions.items():
            count = round(fraction * len(chosen))
            side[chosen[start : start + count]] = split
            start += count
    row_side = side[group_of_row]
    return {split: table.filter(pa.array(row_side == split)) for split in ["train", *fractions]}


def fold_numbers(name: str, table: pa.Table, folds: int, seed: int, classes: bool) -> np.ndarray:
    """Each row's fold, 0 to `folds` - 1, by group: the groups in an order drawn from `seed`, stratum after stratum,
    dealt to the folds in turn (each class's groups spread evenly, no group in two folds)."""
    group_of_row, strata = _group_strata(table, classes)
    if len(strata) < folds:
        raise DataError(
            f"finetune task {name!r}: split.folds is {folds}, but its examples hold {len(strata)} groups (at least "
            "one per fold is needed): lower split.folds"
        )
    dealt = np.concatenate(by_stratum(seed, strata))
    fold_of_group = np.empty(len(strata), dtype=np.int64)
    fold_of_group[dealt] = np.arange(len(dealt)) % folds
    return fold_of_group[group_of_row]


def _labels(table: pa.Table) -> pa.ChunkedArray:
    """A split's labels, one per example, or one per word where each example is a sentence of tagged words."""
    labels = table.column(LABEL)
    return pc.list_flatten(labels) if pa.types.is_list(labels.type) else labels


def check_task_splits(name: str, splits: dict[str, pa.Table], names: list[str] | None, fold: int | None = None) -> None:
    """Every split holds examples; with classes, train holds at least two and no other split holds a class that
    train never has (`fold`: the fold these splits are, named in the error)."""
    where = f"finetune task {name!r}" + (f", fold {fold}" if fold else "")
    for split, table in splits.items():
        if len(table) == 0:
            raise DataError(f"{where}: the {split} split holds no example")
    if names is None:
        return
    trained = set(pc.unique(_labels(splits["train"])).to_pylist())
    if len(trained) < 2:
        raise DataError(f"{where}: train holds one class only (its {len(splits['train'])} examples share one label)")
    for split, table in splits.items():
        labels = _labels(table).to_pylist()
        unseen = [label for label in labels if label not in trained]
        if unseen:  # a cell's content is never quoted: the labels are counted, by class and by example
            units = "words" if pa.types.is_list(table.column(LABEL).type) else "examples"
            raise DataError(
                f"{where}: the {split} split holds {len(set(unseen))} label(s) that train never has, on "
                f"{len(unseen)} of its {len(labels)} {units}: give train examples of every class"
            )
