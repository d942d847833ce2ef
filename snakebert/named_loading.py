"""Loading a pretrained tokenizer or model named by config: a local folder if there is one by that name, else a Hub
id; a failure says what was tried."""

import os
from collections.abc import Callable
from pathlib import Path

from .errors import DataError, first_line


def load_named(load: Callable[[str], object], name: str, what: str):
    """`load(name)`, or a DataError that names `what` (the config key) and the folder, then the Hub id, tried."""
    folder = Path(os.path.realpath(name))  # never raises: a symlink loop is named as it is
    tried = (
        f"the folder {folder}" if folder.exists() else f"a folder {folder} (there is none), then the Hub id {name!r}"
    )
    try:
        return load(name)
    except Exception as error:  # noqa: BLE001 - a missing folder, a bad one, an unreachable Hub: the same report
        raise DataError(
            f"{what} {name!r} could not be loaded: tried {tried} ({type(error).__name__}: {first_line(error)})"
        ) from None
