"""The task types, one table: how each reads its labelled examples (train, and validation and test where it has
them). Adding a task type is an entry in TASK_TYPES, its reader, its branch in the schema's `finetune.tasks` and
the tests (tests/unit/test_tables.py checks that the schema's enum equals the keys)."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..data.shards import check_link, check_name, check_not_output
from ..errors import DataError
from .embedded import EMBEDDED_TASKS
from .examples import GROUP, LABEL, PAIR, TEXT, Where, read_file
from .hub_task import hub_split, resolved
from .problems import DEFAULT_PROBLEM, PROBLEMS
from .squad_examples import ID, V2, read_squad
from .tagged_examples import combined_scheme, read_conll, tag_scheme

SPLITS = ("train", "validation", "test")
TASK = "finetune task"


@dataclass
class TaskSource:
    description: str
    problem: str  # a key of PROBLEMS
    metrics: list[str]  # the first chooses the best epoch
    label_names: list[str] | None  # the classes as the data declares them (None: found in train)
    splits: dict[str, pa.Table | None]  # train, and validation and test where the task gives them
    tag_scheme: str | None = None  # a word-tagging task's: iob2, iobes or plain (tagged_examples.py)
    allow_unanswerable: bool | None = None  # a question-answering task's: SQuAD v2.0 (True) or v1.1


def _metrics(chosen: list[str] | None, problem: str) -> list[str]:
    """The metrics a task chose, else its problem's defaults."""
    return chosen or list(PROBLEMS[problem].default_metrics)


def _embedded(task: dict) -> TaskSource:
    embedded = EMBEDDED_TASKS[task["task"]]
    train, problem = embedded.read(task), embedded.problem
    splits = {"train": train, "validation": None, "test": None}
    scheme = _scheme(task, problem, {"train": (train, Where(f"embedded task {task['task']!r}"))})
    return TaskSource(embedded.description, problem, _metrics(None, problem), None, splits, scheme, _v2(task, problem))


def task_file(task: dict, path: str) -> str:
    """`path`, a file of the `files` task, checked as it is opened as a source's file is (shards.py): a name that
    cannot pass through the workflow, a file in the workflow's own outputs, and a symlink out of the working directory
    unless the task follows them."""
    check_name(path, task["name"], TASK)
    check_not_output(path, task["name"], kind=TASK)
    return path if task.get("follow_symlinks") else check_link(path, [], task["name"], TASK)


def _file_split(task: dict, path: str, problem: str) -> tuple[pa.Table, Where]:
    """One split of a `files` task, and where its rows are (lines, for a CoNLL file)."""
    if task["format"] == "conll":
        return read_conll(path, task["conll_columns"], task["text_column"], task["label_column"])
    if task["format"] == "squad":
        return read_squad(path, bool(task.get("allow_unanswerable")))
    columns = {TEXT: task["text_column"], PAIR: task["text_pair_column"], LABEL: task["label_column"],
               GROUP: task["group_column"]}  # fmt: skip
    where = Where(path, task["format"])
    return PROBLEMS[problem].examples(read_file(path, task["format"]), columns, where), where


def _scheme(task: dict, problem: str, read: dict[str, tuple[pa.Table, Where]]) -> str | None:
    """A word-tagging task's tag scheme, the task's own (`tag_scheme`) or found, every split's tags checked by it."""
    if problem != "token_classification":
        return None
    declared = task.get("tag_scheme")
    schemes = {split: tag_scheme(table.column(LABEL), declared, where) for split, (table, where) in read.items()}
    return combined_scheme(schemes, task["name"])


def _v2(task: dict, problem: str) -> bool | None:
    """A question-answering task's questions may have no answer (SQuAD v2.0); None for another problem."""
    return bool(task.get("allow_unanswerable")) if problem == "extractive_qa" else None


def check_answered(task: dict, problem: str, read: dict[str, tuple[pa.Table, Where]]) -> None:
    """Every question of an extractive_qa task that reads SQuAD v1.1 (allow_unanswerable false) has an answer: the
    first without one is refused by split and row (a SQuAD JSON file's questions are checked as they are read)."""
    if problem != "extractive_qa" or task.get("allow_unanswerable"):
        return
    for table, where in read.values():
        empty = np.flatnonzero(pc.list_value_length(table.column(LABEL)).to_numpy(zero_copy_only=False) == 0)
        if len(empty):
            row = int(empty[0])
            raise DataError(
                f"{where}: {where.row(row)} (id {table.column(ID)[row].as_py()!r}) has no answer: {V2}, and task "
                f"{task['name']!r} reads SQuAD v1.1, where each has one (set allow_unanswerable: true for v2.0)"
            )


def _files(task: dict) -> TaskSource:
    problem = task["problem"] or DEFAULT_PROBLEM
    read = {split: _file_split(task, task_file(task, task[split]), problem) for split in SPLITS if task[split]}
    check_answered(task, problem, read)
    splits = {split: read[split][0] if split in read else None for split in SPLITS}
    description = f"{task['label_column'] or 'answers'} of {task['train']}"
    metrics = _metrics(task["metrics"], problem)
    return TaskSource(description, problem, metrics, None, splits, _scheme(task, problem, read), _v2(task, problem))


def _hub(task: dict) -> TaskSource:
    task = resolved(task)
    read, names = {}, None
    for split in SPLITS:
        if task[f"{split}_split"]:
            *read[split], found = hub_split(task, task[f"{split}_split"])
            names = names or found
    check_answered(task, task["problem"], read)
    splits = {split: read[split][0] if split in read else None for split in SPLITS}
    description = task["preset"] or f"{task['label_column']} of {task['path']}"
    problem = task["problem"]
    metrics = _metrics(task["metrics"], problem)
    return TaskSource(description, problem, metrics, names, splits, _scheme(task, problem, read), _v2(task, problem))


TASK_TYPES: dict[str, Callable[[dict], TaskSource]] = {"embedded": _embedded, "files": _files, "hub": _hub}


def read_task(task: dict) -> TaskSource:
    return TASK_TYPES[task["type"]](task)
