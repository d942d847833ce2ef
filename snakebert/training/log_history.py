"""The model folder's log_history.json: the trainer state's log history (transformers'), one object per logged step,
as the run logged it. Its keys vary from entry to entry (a training loss, a learning rate, a gradient norm, an
evaluation's loss, the run's totals), so it has no typed view: every entry is an object with its integer `step`.
pretrain writes it (write_log_history); the report's training curves read it (read_log_history)."""

import json
from pathlib import Path

from ..files.json_files import read_json, write_json
from ..files.json_views import not_this_workflows

FILE_NAME = "log_history.json"
WHAT = "log history"


def history_path(model_folder: str | Path) -> Path:
    return Path(model_folder) / FILE_NAME


def logged_steps(history) -> list[dict]:
    """`history` itself when it is a list of objects, each with an integer `step`; a TypeError naming the first
    entry that is not."""
    if not isinstance(history, list):
        raise TypeError(f"a list of logged steps expected, found {type(history).__name__}")
    for index, entry in enumerate(history):
        step = entry.get("step") if isinstance(entry, dict) else None
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"its entry {index}, {json.dumps(entry)[:60]}, has no integer step")
    return history


def write_log_history(model_folder: str | Path, history: list[dict]) -> None:
    write_json(history_path(model_folder), history)


def read_log_history(model_folder: str | Path) -> list[dict]:
    """The log history of the model in `model_folder`; one that is not a list of logged steps is refused, naming the
    file and the entry at fault."""
    path = str(history_path(model_folder))
    try:
        return logged_steps(read_json(path, WHAT))
    except TypeError as error:
        raise not_this_workflows(path, WHAT, error) from None
