"""The `tracking` config section, as the training jobs read it: a JSON file that the workflow writes when it is
parsed, at one path (TRACKING_FILE), and that pretrain, calibrate and finetune declare as an input (`--tracking`).
A tracker changes what a run reports, never what it computes, so a changed section reruns nothing: the rules declare
the file `ancient` (its modification time never reruns a job), its path never changes (no new input), and it is
rewritten only when its content changes."""

import json
from pathlib import Path

from ..errors import DataError
from . import REBUILD
from .atomic import replace_text
from .json_files import read_json

TRACKING_FILE = ".snakemake/snakebert/tracking.json"
WHAT = "tracking settings file"


def write_tracking_settings(section: dict, path: str = TRACKING_FILE) -> str:
    """Write the `tracking` `section` to `path`, unless it holds it already; its path."""
    text = json.dumps(section, indent=1, sort_keys=True) + "\n"
    file = Path(path)
    if not file.is_file() or file.read_text(encoding="utf-8") != text:
        replace_text(file, text)
    return path


def read_tracking_settings(path: str) -> dict:
    """The `tracking` section a file of write_tracking_settings holds; a missing or foreign one is named, with the
    field at fault."""
    if not Path(path).is_file():
        raise DataError(f"{path}: no such {WHAT}; the workflow writes it when it is parsed: rerun the workflow")
    section = read_json(path, WHAT)
    if not isinstance(section, dict):
        raise DataError(f"{path}: not a {WHAT} (a JSON object expected); {REBUILD}")
    trackers = section.get("trackers")
    if not isinstance(trackers, list) or not all(isinstance(name, str) for name in trackers):
        raise DataError(f"{path}: the {WHAT}'s 'trackers' is not a list of names; {REBUILD}")
    return section
