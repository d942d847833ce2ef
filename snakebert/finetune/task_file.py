"""A prepared task's description (results/finetune/{task}/data/task.json, and a fold's in its folder), as prepare.py
writes it and every fine-tuning job reads it: a frozen dataclass whose attributes are the file's keys, in the file's
order. This module alone spells the file's path."""

from dataclasses import dataclass
from pathlib import Path

from ..files.json_files import write_json
from ..files.json_views import as_json, built, read_view

TASK_DATA = "results/finetune/{task}/data"  # the prepared task: its splits and TASK_FILE (a fold's, in FOLD_DATA)
FOLD_DATA = TASK_DATA + "/{fold}"  # `fold`: a fold's folder and a slash (split.folds), or nothing without folds
TASK_FILE = "task.json"
WHAT = "task file"


@dataclass(frozen=True)
class TaskFile:
    """task.json: the task's name and type, what it is, its problem, its class or tag names (None: a number or an
    answer span), its metrics (the first the main one), whether it has a second text, its tag scheme and whether a
    question may have no answer (None where the problem has none), the split it reports, the splits it carved, its
    folds and this folder's fold (None without), and each split's counts and checksum."""

    task: str
    type: str
    description: str
    problem: str
    labels: tuple[str, ...] | None
    metrics: tuple[str, ...]
    main_metric: str
    text_pair: bool
    tag_scheme: str | None
    allow_unanswerable: bool | None
    reported_split: str
    carved: tuple[str, ...]
    folds: int | None
    fold: int | None
    splits: dict[str, dict]  # {split: its counts (problems.py) and, but in a folds' pooled file, its sha256}

    @classmethod
    def from_json(cls, data: dict) -> "TaskFile":
        return built(cls, data)


def write_task_file(folder: str | Path, task: TaskFile) -> None:
    write_json(Path(folder) / TASK_FILE, as_json(task))


def read_task_file(path: str | Path) -> TaskFile:
    """The description at `path` (a prepared task's TASK_FILE), refused, naming the field, where a part is missing or
    not of its kind (an older preparation's, or another file's)."""
    return read_view(str(path), WHAT, TaskFile)
