"""The languages the language rule (filtering.py) can keep, those `py3langid` identifies, and the config check of
`clean.languages`. The workflow's parse calls language_problems, so this module imports neither `py3langid` nor
datatrove when it is imported, and the check loads no model: it reads the list of languages from the model's file
alone (its `classes` array: a third of a second, where loading the model takes twice that)."""

import importlib.util
import io
import lzma
from functools import cache

import numpy as np

PACKAGE = "py3langid"


@cache
def identified_languages() -> tuple[str, ...]:
    """The language codes py3langid identifies, in its model's order, each once."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE  # numpy alone: it loads no model

    with np.load(io.BytesIO(lzma.decompress((MODEL_DIR / MODEL_FILE).read_bytes()))) as model:
        return tuple(dict.fromkeys(model["classes"].tolist()))


def language_problems(codes: list[str]) -> list[str]:
    """What is wrong with `clean.languages`: py3langid missing, or a code it does not identify."""
    if importlib.util.find_spec(PACKAGE) is None:
        return [f"config clean.languages needs the Python package {PACKAGE!r}; install requirements.txt"]
    known = identified_languages()
    listed = ", ".join(sorted(known))
    return [
        f"config clean.languages: {code!r} is not a language {PACKAGE} identifies (it knows: {listed})"
        for code in codes
        if code not in known
    ]
