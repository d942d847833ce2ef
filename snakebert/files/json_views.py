"""Typed views of the pipeline's JSON files: frozen dataclasses whose attributes are a file's keys (in the file's
order), built from the parsed JSON by `built`, turned back into exactly that JSON by `as_json`, and read by
`read_view`, which refuses a file of another version or of another program, naming the file and the key at fault."""

import types
import typing
from dataclasses import MISSING, field, fields, is_dataclass
from functools import cache

from ..errors import DataError
from .json_files import read_json

LEFT_OUT = "left out when None"  # the metadata of a field the file holds only when it has a value


def left_out_when_none():
    """A field whose key the file leaves out where it has no value (last in its dataclass, or in a keyword-only
    one)."""
    return field(default=None, metadata={LEFT_OUT: True})


class _Absent:
    """The value of a field whose key one file holds, its value maybe None, and another file of the same view leaves
    out: false, and one of its kind (a copy of it is itself)."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def left_out_when_absent():
    """A field whose key the file holds where it was given (None included) and leaves out where not (ABSENT): one
    view of files that hold the key, maybe null, and files that lack it (in a keyword-only dataclass)."""
    return field(default=ABSENT)


@cache
def _types(cls) -> dict:
    return typing.get_type_hints(cls)


def _value(kind, value, name: str):
    """`value` as a view's field of type `kind` holds it: an object built as the dataclass `kind` names (where it is
    not one yet, by its `from_json` where it has one; a view of any dataclass a union names is kept), a tuple or dict
    of them; a count, id or size that is not an integer (`37.0`, `true`: a hand edit),
    or an object that is not one, is a TypeError naming its key."""
    if isinstance(kind, types.UnionType):
        if value is None and type(None) in typing.get_args(kind):
            return None
        if any(is_dataclass(each) and isinstance(value, each) for each in typing.get_args(kind)):
            return value
        kind = next(each for each in typing.get_args(kind) if each is not type(None))
    if is_dataclass(kind):
        if isinstance(value, kind):
            return value
        if not isinstance(value, dict):
            raise TypeError(f"its {name!r} is {value!r}, not an object")
        return kind.from_json(value) if hasattr(kind, "from_json") else built(kind, value)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is tuple:
        return tuple(_value(args[0], item, name) for item in value)
    if origin is dict:
        return {key: _value(args[1], item, name) for key, item in value.items()}
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"its {name!r} is {value!r}, not an integer")
    return value


def built(cls, data: dict, **parts):
    """`cls` from the JSON object `data`: each field from the key of its name (KeyError where it is missing, but for
    a field left out when None), or from `parts`, the views of its nested objects; a field not in `parts` that the
    type names as a view, or a tuple or dict of views, is built as one."""
    values = {}
    for found in fields(cls):
        if found.name in parts:
            values[found.name] = parts[found.name]
        elif found.name in data or found.default is MISSING:
            values[found.name] = _value(_types(cls)[found.name], data[found.name], found.name)
    return cls(**values)


def as_json(view):
    """A view, or a part of one, as the JSON it was built from: objects with their keys in field order (a field left
    out when None, or ABSENT, left out), lists."""
    if is_dataclass(view):
        return {
            found.name: as_json(getattr(view, found.name))
            for found in fields(view)
            if not (found.metadata.get(LEFT_OUT) and getattr(view, found.name) is None)
            and getattr(view, found.name) is not ABSENT
        }
    if isinstance(view, tuple | list):
        return [as_json(item) for item in view]
    if isinstance(view, dict):
        return {key: as_json(value) for key, value in view.items()}
    return view


def not_this_workflows(path: str, what: str, error: Exception, remedy: str = "rerun to rebuild it") -> DataError:
    """The refusal of a `what` (a manifest) with a part missing, or not of the kind this workflow writes (`error`
    says which), with what makes it anew (`remedy`)."""
    return DataError(f"{path}: not a {what} of this workflow ({error!r}); {remedy}")


def read_view(path: str, what: str, view, remedy: str = "rerun to rebuild it"):
    """The `view` (a class with `from_json`) of the JSON file at `path`, a `what`; a damaged file, or one with a key
    missing or of another kind, is refused naming the file and the key, and what makes it anew (`remedy`: a rerun,
    where the file is an input of the job that reads it)."""
    data = read_json(path, what)
    try:
        return view.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise not_this_workflows(path, what, error, remedy) from error
