"""Typed views of the pipeline's JSON files: frozen dataclasses whose attributes are a file's keys, in the file's
order, built from the parsed JSON by `built` and turned back into exactly that JSON by `as_json`. A field declared
`optional()` is a key the file holds only where it has a value."""

import types
import typing
from dataclasses import field, fields, is_dataclass
from functools import cache

from ..errors import DataError
from . import REBUILD

ABSENT_WHERE_NONE = "absent_where_none"


def optional():
    """A field whose key the file leaves out where it has no value (None in the view)."""
    return field(default=None, metadata={ABSENT_WHERE_NONE: True})


@cache
def _types(cls) -> dict:
    return typing.get_type_hints(cls)


def _value(kind, value, name: str):
    """`value` as the view's `kind` holds it: a dataclass built (where it is not one yet), a tuple or dict of them; an
    int that is not one (`37.0`, `true`: a hand edit) or an object that is not one is a TypeError naming its key."""
    if isinstance(kind, types.UnionType) and value is None and type(None) in typing.get_args(kind):
        return None
    if isinstance(kind, types.UnionType):
        kind = next(each for each in typing.get_args(kind) if each is not type(None))
    if is_dataclass(kind):
        if isinstance(value, kind):
            return value
        if not isinstance(value, dict):
            raise TypeError(f"its {name!r} is {value!r}, not an object")
        return built(kind, value)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is tuple:
        return tuple(_value(args[0], item, name) for item in value)
    if origin is dict:
        return {key: _value(args[1], item, name) for key, item in value.items()}
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"its {name!r} is {value!r}, not an integer")
    return value


def built(cls, data: dict):
    """`cls` from the JSON object `data`: each field from the key of its name (KeyError where it is missing, unless the
    field is optional), its nested objects as the views its type names."""
    values = {}
    for each in fields(cls):
        if each.metadata.get(ABSENT_WHERE_NONE) and each.name not in data:
            continue
        values[each.name] = _value(_types(cls)[each.name], data[each.name], each.name)
    return cls(**values)


def as_json(view):
    """A view, or a part of one, as the JSON it was built from: objects with their keys in field order (an optional
    field without a value left out), lists."""
    if is_dataclass(view):
        return {
            each.name: as_json(getattr(view, each.name))
            for each in fields(view)
            if not (each.metadata.get(ABSENT_WHERE_NONE) and getattr(view, each.name) is None)
        }
    if isinstance(view, tuple | list):
        return [as_json(item) for item in view]
    if isinstance(view, dict):
        return {key: as_json(value) for key, value in view.items()}
    return view


def not_this_workflows(path: str, what: str, error: Exception) -> DataError:
    """The refusal of a file with a part missing, or not of the kind this workflow writes (`error` says which)."""
    return DataError(f"{path}: not a {what} of this workflow ({error!r}); {REBUILD}")
