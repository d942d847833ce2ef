"""The task types, one table: how each reads its labelled examples (train, and validation and test where it has
them). Adding a task type is an entry in TASK_TYPES, its reader, its branch in the schema's `finetune.tasks` and
the tests (tests/unit/test_tables.py checks that the schema's enum equals the keys)."""

from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa

from ..data.shards import check_link, check_name, check_not_output
from .embedded import EMBEDDED_TASKS
from .examples import GROUP, LABEL, PAIR, TEXT, read_examples
from .hub_task import hub_split, resolved
from .problems import DEFAULT_PROBLEM, PROBLEMS

SPLITS = ("train", "validation", "test")
TASK = "finetune task"


@dataclass
class TaskSource:
    description: str
    problem: str  # a key of PROBLEMS
    metrics: list[str]  # the first chooses the best epoch
    label_names: list[str] | None  # the classes as the data declares them (None: found in train)
    splits: dict[str, pa.Table | None]  # train, and validation and test where the task gives them


def _metrics(chosen: list[str] | None, problem: str) -> list[str]:
    """The metrics a task chose, else its problem's defaults."""
    return chosen or list(PROBLEMS[problem].default_metrics)


def _embedded(task: dict) -> TaskSource:
    read, description = EMBEDDED_TASKS[task["task"]]
    splits = {"train": read(task), "validation": None, "test": None}
    return TaskSource(description, DEFAULT_PROBLEM, _metrics(None, DEFAULT_PROBLEM), None, splits)


def task_file(task: dict, path: str) -> str:
    """`path`, a file of the `files` task, checked as it is opened as a source's file is (shards.py): a name that
    cannot pass through the workflow, a file in the workflow's own outputs, and a symlink out of the working directory
    unless the task follows them."""
    check_name(path, task["name"], TASK)
    check_not_output(path, task["name"], kind=TASK)
    return path if task.get("follow_symlinks") else check_link(path, [], task["name"], TASK)


def _files(task: dict) -> TaskSource:
    problem = task["problem"] or DEFAULT_PROBLEM
    columns = {TEXT: task["text_column"], PAIR: task["text_pair_column"], LABEL: task["label_column"],
               GROUP: task["group_column"]}  # fmt: skip
    labels = PROBLEMS[problem].labels
    splits = {
        split: read_examples(task_file(task, task[split]), task["format"], columns, labels) if task[split] else None
        for split in SPLITS
    }
    description = f"{task['label_column']} of {task['train']}"
    return TaskSource(description, problem, _metrics(task["metrics"], problem), None, splits)


def _hub(task: dict) -> TaskSource:
    task = resolved(task)
    splits, names = {}, None
    for split in SPLITS:
        name = task[f"{split}_split"]
        splits[split], found = hub_split(task, name) if name else (None, None)
        names = names or found
    description = task["preset"] or f"{task['label_column']} of {task['path']}"
    return TaskSource(description, task["problem"], _metrics(task["metrics"], task["problem"]), names, splits)


TASK_TYPES: dict[str, Callable[[dict], TaskSource]] = {"embedded": _embedded, "files": _files, "hub": _hub}


def read_task(task: dict) -> TaskSource:
    return TASK_TYPES[task["type"]](task)
