"""Prepare a task's data: read it (TASK_TYPES), carve the splits it lacks, check them, and write each split as an
Arrow file (`text`, `text_pair` for pairs, `label`: a class id or a number, `group`) beside `task.json`, which
describes the task, its classes and each split's counts and checksum. What every fine-tuning run reads."""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from ..files.arrow_streams import read_table, stream_writer
from ..files.atomic import atomic_path
from ..files.checksum import sha256
from ..files.json_files import read_json
from .examples import GROUP, LABEL
from .splits import carve, check_task_splits, label_names
from .tasks import SPLITS, read_task

TASK_FILE = "task.json"


def _encoded(table: pa.Table, names: list[str] | None) -> pa.Table:
    """Class names as their ids (the index in `names`); numbers as they are."""
    if names is None:
        return table
    ids = pc.index_in(table.column(LABEL), value_set=pa.array(names, pa.string())).cast(pa.int64())
    return table.set_column(table.column_names.index(LABEL), LABEL, ids)


def _counts(table: pa.Table, names: list[str] | None) -> dict:
    counts = {"examples": len(table), "groups": len(pc.unique(table.column(GROUP)))}
    labels = table.column(LABEL).to_numpy()
    if names is None:
        return {**counts, "label_mean": float(labels.mean()), "label_std": float(labels.std())}
    return {**counts, "class_counts": {name: int((labels == index).sum()) for index, name in enumerate(names)}}


def _write(table: pa.Table, path: Path) -> None:
    with stream_writer(path, table.schema) as writer:
        writer.write_table(table)


def prepare_task(task: dict, out: str) -> dict:
    """Write the task's splits and task.json into the folder `out`; return the task description."""
    source = read_task(task)
    splits = dict(source.splits)
    wanted = {"test": task["split"]["test_fraction"], "validation": task["split"]["validation_fraction"]}
    fractions = {split: share for split, share in wanted.items() if splits[split] is None and share > 0}
    classes = source.problem == "classification"
    splits.update(carve(splits["train"], fractions, task["split"]["seed"], classes))
    splits = {split: splits[split] for split in SPLITS if splits[split] is not None}
    names = label_names(splits["train"], source.label_names) if classes else None
    check_task_splits(task["name"], splits, names)
    description = {
        "task": task["name"],
        "type": task["type"],
        "description": source.description,
        "problem": source.problem,
        "labels": names,
        "metrics": source.metrics,
        "main_metric": source.metrics[0],
        "text_pair": "text_pair" in splits["train"].column_names,
        "reported_split": "test" if "test" in splits else "validation",
        "carved": sorted(fractions),
        "splits": {},
    }
    if "f1" in source.metrics and (names is None or len(names) != 2):
        raise DataError(f"finetune task {task['name']!r}: metric f1 needs two classes (use macro_f1)")
    with atomic_path(out) as tmp:
        tmp.mkdir()
        for split, table in splits.items():
            encoded = _encoded(table, names)
            _write(encoded, tmp / f"{split}.arrow")
            description["splits"][split] = {**_counts(encoded, names), "sha256": sha256(tmp / f"{split}.arrow")}
        (tmp / TASK_FILE).write_text(json.dumps(description, indent=1) + "\n")
    return description


def read_split(folder: str, split: str) -> pa.Table:
    """One split prepare_task wrote."""
    return read_table(str(Path(folder) / f"{split}.arrow"))


def read_task_dir(folder: str) -> tuple[dict, dict[str, pa.Table]]:
    """What prepare_task wrote: the task description and its splits."""
    task = read_json(str(Path(folder) / TASK_FILE), "task file")
    return task, {split: read_split(folder, split) for split in task["splits"]}
