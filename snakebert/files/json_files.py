"""The pipeline's own JSON files (the data jobs' stats, the manifest, metrics), written atomically and read back by
the jobs after them."""

import json
import os
from pathlib import Path

from ..errors import DataError
from . import REBUILD, unreadable
from .atomic import atomic_path


def write_json(path: str | os.PathLike, value) -> None:
    """`value` as indented JSON with a final newline, written atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(value, indent=1) + "\n")


def read_json(path: str, what: str = "stats file") -> dict:
    """A JSON file of ours; a damaged one is named, with what to do."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise unreadable(path, what, error) from None


def read_fields(path: str, fields: dict[str, type], what: str = "stats file") -> dict:
    """A JSON object of ours that holds `fields` ({key: type}, counts being non-negative integers); one of another
    shape (edited by hand, or written by another version) is named, with the key at fault."""
    value = read_json(path, what)
    if not isinstance(value, dict):
        raise DataError(f"{path}: not a {what} (a JSON object expected, found {type(value).__name__}); {REBUILD}")
    for key, kind in fields.items():
        if key not in value:
            raise DataError(f"{path}: the {what} has no {key!r}; {REBUILD}")
        found = value[key]
        if isinstance(found, bool) or not isinstance(found, kind) or (kind is int and found < 0):
            shown = json.dumps(found)[:40]
            wanted = "a non-negative integer" if kind is int else "a string"
            raise DataError(f"{path}: the {what}'s {key!r} is {shown}, not {wanted}; {REBUILD}")
    return value
