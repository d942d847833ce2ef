"""Integers read from the environment (a launcher's world size and rank, SLURM's job ID): a whole number (`2`, or
`2.0`, as the config's integers are read), anything else a DataError naming the variable, never a bare
`invalid literal for int()`."""

import re
from collections.abc import Mapping

from .errors import DataError

WHOLE_NUMBER = re.compile(r"\s*\+?[0-9]+(\.0*)?\s*")


def environment_integer(environment: Mapping[str, str], name: str, default: int) -> int:
    """The whole number in `environment[name]`, or `default` where it is unset or empty."""
    text = environment.get(name)
    if not text:
        return default
    if not WHOLE_NUMBER.fullmatch(text):
        raise DataError(
            f"environment variable {name}={text[:40]!r} is not a whole number: a launcher or SLURM sets it; unset it, "
            "or set it to one"
        )
    return int(text.strip().split(".")[0])
