"""Settings and arguments too large for a command line, handed to their job as a file. Snakemake runs a job's shell
command as one argument of `bash -c`, which the kernel caps at 128 KiB (MAX_ARG_STRLEN): thousands of probes, or a
list of every shard, run or task, would pass it. The file is written when the workflow is parsed (by the main process,
and again by each cluster job's parse, in the shared working directory), named by the digest of its content (a
changed setting is another file, so another params value, and the job reruns), by a rename (jobs that parse the
workflow at once agree). A config section reaches its job the same way, as a short path in place of its JSON: the
printed command stays readable. A script reads an arguments file in place of its `--arguments-file` flag, and a
section's file with read_settings."""

import hashlib
import json
import sys
from pathlib import Path

from ..errors import DataError
from . import REBUILD
from .atomic import replace_text
from .json_files import read_json

ARGUMENTS_FILE = "--arguments-file"


def settings_file(value, folder: Path) -> str:
    """The path of a file in `folder` that holds `value` as JSON."""
    text = json.dumps(value, sort_keys=True)
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.json"
    if not path.is_file():
        replace_text(path, text)
    return str(path)


def _written(path: str, what: str):
    """What the settings file at `path` (a `what`) holds; a missing or damaged one is named, with what to do."""
    if not Path(path).is_file():
        raise DataError(f"{path}: no such {what}; the workflow writes it when it is parsed: rerun the workflow")
    return read_json(path, what)


def read_settings(path: str) -> dict:
    """The config section a settings file holds (a JSON object), handed to a job in place of its JSON."""
    section = _written(path, "settings file")
    if not isinstance(section, dict):
        raise DataError(f"{path}: not a settings file (a JSON object expected); {REBUILD}")
    return section


def read_arguments(path: str) -> list[str]:
    """The arguments a settings file holds (a JSON list of strings)."""
    arguments = _written(path, "arguments file")
    if not isinstance(arguments, list) or not all(isinstance(argument, str) for argument in arguments):
        raise DataError(f"{path}: not an arguments file (a JSON list of strings expected); {REBUILD}")
    return arguments


def expand_arguments(argv: list[str]) -> list[str]:
    """`argv` with the arguments of the file that `--arguments-file FILE` names read in place of the two (the flag
    counts before a `--` only, so a file named so after one stays a file; what the file holds is never expanded)."""
    options = argv[: argv.index("--")] if "--" in argv else argv
    if ARGUMENTS_FILE not in options[:-1]:
        return argv
    at = options.index(ARGUMENTS_FILE)
    return [*argv[:at], *read_arguments(argv[at + 1]), *argv[at + 2 :]]


def parse_arguments(parser, argv: list[str] | None = None):
    """What a script's `parser` makes of its command line (`argv`; by default the process's), an arguments file read
    in place of its flag: the lists a rule gives its script (every shard, run or task) reach it in the file."""
    parser.add_argument(ARGUMENTS_FILE, metavar="FILE", help="a JSON list of more arguments, read in its place")
    return parser.parse_args(expand_arguments(sys.argv[1:] if argv is None else argv))
