"""One error type for bad input, and the CLI guard that turns it into a clean exit."""

import sys
from collections.abc import Callable


class DataError(Exception):
    """Bad input: the message names the file, key or row at fault."""


def first_line(error: Exception, default: str = "") -> str:
    """The first line of an exception's message (a library's can run to pages), or `default` if it has none."""
    text = str(error).strip()
    return text.splitlines()[0] if text else default


def run_cli(main: Callable[[], None]) -> None:
    """Run a script's main(); report a DataError on stderr and exit 1, without a traceback."""
    try:
        main()
    except DataError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
