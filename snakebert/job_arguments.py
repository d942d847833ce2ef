"""A job's command line, declared once, in its dataclass: each field the workflow fills is the flag of its name
(`world_size` is `--world-size`), with its help and how the flag's text becomes the value (`json.loads` for a config
section, a file's reader for a file of settings). The scripts build their parser from the fields (add_arguments) and
the job from what was parsed (arguments_of); the rules write the flags."""

from collections.abc import Callable
from dataclasses import MISSING, field, fields

ARGUMENT = "argument"  # the metadata key of a field that the command line fills


def argument(help: str, read: Callable[[str], object] = str, choices=None, **default):
    """A field filled from the command line: `read` makes its value from the flag's text; `default` (default= or
    default_factory=) when the flag may be left out."""
    return field(metadata={ARGUMENT: {"help": help, "read": read, "choices": choices}}, **default)


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_arguments(parser, job_class) -> None:
    """A flag for each field of `job_class` that the command line fills, added to a script's `parser`; required where
    the field has no default."""
    for found in fields(job_class):
        if ARGUMENT in found.metadata:
            spec = found.metadata[ARGUMENT]
            required = found.default is MISSING and found.default_factory is MISSING
            parser.add_argument(flag(found.name), required=required, choices=spec["choices"], help=spec["help"])


def arguments_of(job_class, args) -> dict:
    """{field: value} of the fields of `job_class` that `args` gives, each read from its text (a flag left out keeps
    the field's default)."""
    return {
        found.name: found.metadata[ARGUMENT]["read"](getattr(args, found.name))
        for found in fields(job_class)
        if ARGUMENT in found.metadata and getattr(args, found.name) is not None
    }
