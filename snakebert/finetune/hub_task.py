"""A `hub` task: a data set of the Hugging Face Hub (or a local folder laid out like it) read through
`datasets.load_dataset`, and the presets: each GLUE task's columns, splits and official metrics (GLUE's test labels
are hidden, so a GLUE preset reports on GLUE's validation split and carves its own validation split out of train),
CoNLL-2003's named entities, and SQuAD v1.1 and v2.0."""

from dataclasses import dataclass

import pyarrow as pa

from ..errors import DataError, first_line
from .examples import GROUP, LABEL, PAIR, TEXT, Where
from .problems import DEFAULT_PROBLEM, PROBLEMS
from .squad_metrics import QA_METRICS


@dataclass(frozen=True)
class Preset:
    path: str
    config: str | None
    text: str
    pair: str | None
    label: str
    problem: str
    metrics: tuple[str, ...]
    validation_split: str | None = None  # None: carved out of train
    test_split: str = "validation"
    allow_unanswerable: bool = False  # SQuAD v2.0's questions without an answer (problem extractive_qa)


GLUE_PATH = "nyu-mll/glue"
GLUE = {
    "cola": ("sentence", None, "classification", ("matthews", "accuracy")),
    "sst2": ("sentence", None, "classification", ("accuracy", "macro_f1")),
    "mrpc": ("sentence1", "sentence2", "classification", ("f1", "accuracy")),
    "qqp": ("question1", "question2", "classification", ("f1", "accuracy")),
    "stsb": ("sentence1", "sentence2", "regression", ("pearson", "spearman")),
    "mnli": ("premise", "hypothesis", "classification", ("accuracy", "macro_f1"), "validation_matched"),
    "qnli": ("question", "sentence", "classification", ("accuracy", "macro_f1")),
    "rte": ("sentence1", "sentence2", "classification", ("accuracy", "macro_f1")),
    "wnli": ("sentence1", "sentence2", "classification", ("accuracy", "macro_f1")),
}
PRESETS = {
    **{
        f"glue/{name}": Preset(GLUE_PATH, name, *columns[:2], "label", *columns[2:4], None, *columns[4:])
        for name, columns in GLUE.items()
    },  # fmt: skip
    # CoNLL-2003's English named entities (IOB2 tags, as the Hub's copy has them), on its own validation and test
    "conll2003": Preset(
        "eriktks/conll2003",
        None,
        "tokens",
        None,
        "ner_tags",
        "token_classification",
        ("entity_f1", "entity_precision", "entity_recall", "token_accuracy"),
        "validation",
        "test",
    ),
    # SQuAD v1.1 and v2.0 (their test sets are hidden): reported on their validation split, validation carved out of
    # train by article
    **{
        name: Preset(
            f"rajpurkar/{name}",
            None,
            "question",
            "context",
            "answers",
            "extractive_qa",
            QA_METRICS,
            allow_unanswerable=name == "squad_v2",
        )
        for name in ("squad", "squad_v2")
    },
}


def resolved(task: dict) -> dict:
    """The task with its preset's values where the task sets none, and the generic defaults after that."""
    preset = PRESETS[task["preset"]] if task["preset"] else None
    implied = {
        "path": preset.path if preset else None,
        "config": preset.config if preset else None,
        "train_split": "train",
        "validation_split": preset.validation_split if preset else None,
        "test_split": preset.test_split if preset else None,
        "text_column": preset.text if preset else "text",
        "text_pair_column": preset.pair if preset else None,
        "label_column": preset.label if preset else "label",
        "problem": preset.problem if preset else DEFAULT_PROBLEM,
        "metrics": list(preset.metrics) if preset else None,
        "allow_unanswerable": preset.allow_unanswerable if preset else False,
    }
    found = {**task, **{key: task.get(key) if task.get(key) is not None else value for key, value in implied.items()}}
    if found["path"] is None:
        raise DataError(f"finetune task {task['name']!r}: a hub task needs `path` or a `preset`")
    return found


def _describe(task: dict, split: str) -> str:
    return f"Hub data set {task['path']!r} (config {task['config']}, split {split})"


def _class_names(feature) -> list[str] | None:
    """The class names a label feature declares: of each label, or of each word's tag (a list of classes)."""
    import datasets

    inner = getattr(feature, "feature", None)  # a list's items
    found = inner if isinstance(inner, datasets.ClassLabel) else feature
    return list(found.names) if isinstance(found, datasets.ClassLabel) else None


def _named(ids: pa.Array, names: list[str]) -> pa.Array:
    """Class ids as their names (None for an id out of range: refused by the examples' checks)."""
    found = ids.to_numpy(zero_copy_only=False)
    return pa.array([names[int(index)] if 0 <= index < len(names) else None for index in found], pa.string())


def _label_names(table: pa.Table, name: str, names: list[str]) -> pa.Table:
    """The label column's class ids as their names, each word's in a list of tags."""
    labels = table.column(name).combine_chunks()
    if pa.types.is_list(labels.type) or pa.types.is_large_list(labels.type):
        named = pa.ListArray.from_arrays(labels.offsets, _named(labels.values, names), mask=labels.is_null())
    else:
        named = _named(labels, names)
    return table.set_column(table.column_names.index(name), name, named)


def hub_split(task: dict, split: str) -> tuple[pa.Table, Where, list[str] | None]:
    """One split as the flat examples table, where its rows are, and its label names when the data set declares
    classes."""
    import datasets

    where = _describe(task, split)
    try:
        data = datasets.load_dataset(task["path"], task["config"], split=split, revision=task["revision"])
    except Exception as error:  # noqa: BLE001 - a missing folder, split or config, an unreachable Hub: one report
        raise DataError(f"{where} could not be loaded ({type(error).__name__}: {first_line(error)})") from None
    names = _class_names(data.features.get(task["label_column"]))
    table = data.data.table
    problem = PROBLEMS[task["problem"]]
    if names is not None and problem.classes:
        table = _label_names(table, task["label_column"], names)
    columns = {TEXT: task["text_column"], PAIR: task["text_pair_column"], LABEL: task["label_column"], GROUP: None}
    return problem.examples(table, columns, Where(where)), Where(where), names
