"""The pipeline's own JSON files (the data jobs' stats, the manifest), read back by the jobs after them."""

import json
from pathlib import Path

from .errors import DataError


def read_json(path: str, what: str = "stats file") -> dict:
    """A JSON file of ours; a damaged one is named, with what to do."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise DataError(f"{path}: not a readable {what} ({error}); delete it and rerun to rebuild it") from None
