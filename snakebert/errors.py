"""One error type for bad input, one for a run stopped on request, and the CLI guard that turns them into clean
exits."""

import sys
from collections.abc import Callable

from .redaction import redact


class DataError(Exception):
    """Bad input: the message names the file, key or row at fault. Shown redacted, wherever it is printed: a URL in
    it (of the config, the environment or a library's error it quotes) without its user information, query or
    fragment."""

    def __str__(self) -> str:
        return redact(super().__str__())


STOPPED_EXIT = 75  # EX_TEMPFAIL: stopped on request with a checkpoint saved; run again to continue


class StoppedOnRequest(Exception):
    """Training stopped on a signal after saving a checkpoint; the message says which and where."""


def first_line(error: Exception, default: str = "") -> str:
    """The first line of an exception's message (a library's can run to pages), or `default` if it has none."""
    text = str(error).strip()
    return text.splitlines()[0] if text else default


def run_cli(main: Callable[[], None]) -> None:
    """Run a script's main(); report a DataError on stderr and exit 1, a stop on request in one line and exit
    STOPPED_EXIT, without a traceback."""
    try:
        main()
    except DataError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except StoppedOnRequest as stop:
        print(stop, file=sys.stderr, flush=True)
        sys.exit(STOPPED_EXIT)
