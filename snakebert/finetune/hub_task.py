"""A `hub` task: a data set of the Hugging Face Hub (or a local folder laid out like it) read through
`datasets.load_dataset`, and the GLUE presets: each GLUE task's columns, splits and official metrics. GLUE's test
labels are hidden, so a preset reports on GLUE's validation split and carves its own validation split out of train."""

from dataclasses import dataclass

import pyarrow as pa

from ..errors import DataError, first_line
from .examples import GROUP, LABEL, PAIR, TEXT, examples
from .problems import DEFAULT_PROBLEM, PROBLEMS


@dataclass(frozen=True)
class Preset:
    text: str
    pair: str | None
    problem: str
    metrics: tuple[str, ...]
    test_split: str = "validation"


GLUE_PATH = "nyu-mll/glue"
GLUE = {
    "cola": Preset("sentence", None, "classification", ("matthews", "accuracy")),
    "sst2": Preset("sentence", None, "classification", ("accuracy", "macro_f1")),
    "mrpc": Preset("sentence1", "sentence2", "classification", ("f1", "accuracy")),
    "qqp": Preset("question1", "question2", "classification", ("f1", "accuracy")),
    "stsb": Preset("sentence1", "sentence2", "regression", ("pearson", "spearman")),
    "mnli": Preset("premise", "hypothesis", "classification", ("accuracy", "macro_f1"), "validation_matched"),
    "qnli": Preset("question", "sentence", "classification", ("accuracy", "macro_f1")),
    "rte": Preset("sentence1", "sentence2", "classification", ("accuracy", "macro_f1")),
    "wnli": Preset("sentence1", "sentence2", "classification", ("accuracy", "macro_f1")),
}


def resolved(task: dict) -> dict:
    """The task with its preset's values where the task sets none, and the generic defaults after that."""
    preset = GLUE[task["preset"].removeprefix("glue/")] if task["preset"] else None
    implied = {
        "path": GLUE_PATH if preset else None,
        "config": task["preset"].removeprefix("glue/") if preset else None,
        "train_split": "train",
        "validation_split": None,
        "test_split": preset.test_split if preset else None,
        "text_column": preset.text if preset else "text",
        "text_pair_column": preset.pair if preset else None,
        "label_column": "label",
        "problem": preset.problem if preset else DEFAULT_PROBLEM,
        "metrics": list(preset.metrics) if preset else None,
    }
    found = {**task, **{key: task[key] if task[key] is not None else value for key, value in implied.items()}}
    if found["path"] is None:
        raise DataError(f"finetune task {task['name']!r}: a hub task needs `path` or a `preset`")
    return found


def _describe(task: dict, split: str) -> str:
    return f"Hub data set {task['path']!r} (config {task['config']}, split {split})"


def hub_split(task: dict, split: str) -> tuple[pa.Table, list[str] | None]:
    """One split as the flat examples table, and its label names when the data set declares classes."""
    import datasets

    where = _describe(task, split)
    try:
        data = datasets.load_dataset(task["path"], task["config"], split=split, revision=task["revision"])
    except Exception as error:  # noqa: BLE001 - a missing folder, split or config, an unreachable Hub: one report
        raise DataError(f"{where} could not be loaded ({type(error).__name__}: {first_line(error)})") from None
    feature = data.features.get(task["label_column"])
    names = list(feature.names) if isinstance(feature, datasets.ClassLabel) else None
    table = data.data.table
    problem = PROBLEMS[task["problem"]]
    if names is not None and problem.classes:
        ids = table.column(task["label_column"]).to_numpy()
        table = table.set_column(
            table.column_names.index(task["label_column"]),
            task["label_column"],
            pa.array([names[int(index)] if 0 <= index < len(names) else None for index in ids], pa.string()),
        )
    columns = {TEXT: task["text_column"], PAIR: task["text_pair_column"], LABEL: task["label_column"], GROUP: None}
    return examples(table, columns, problem.labels, where), names
