"""A setting too large for a command line (thousands of probes would pass the kernel's limit on one argument), handed
to its job as a file: written when the workflow is parsed, named by the digest of its content (a changed setting is
another file, so another params value, and the job reruns), by a rename (jobs that parse the workflow at once agree)."""

import hashlib
import json
from pathlib import Path

from .atomic import replace_text


def settings_file(value, folder: Path) -> str:
    """The path of a file in `folder` that holds `value` as JSON."""
    text = json.dumps(value, sort_keys=True)
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.json"
    if not path.is_file():
        replace_text(path, text)
    return str(path)
