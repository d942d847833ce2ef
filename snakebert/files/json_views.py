"""Typed views of the pipeline's JSON files: frozen dataclasses whose attributes are a file's keys (in the file's
order), built from the parsed JSON by `built`, turned back into exactly that JSON by `as_json`, and read by
`read_view`, which refuses a file of another version or of another program, naming the file and the key at fault."""

from dataclasses import MISSING, field, fields, is_dataclass

from ..errors import DataError
from .json_files import read_json

LEFT_OUT = "left out when None"  # the metadata of a field the file holds only when it has a value


def left_out_when_none():
    """A field, last in its dataclass, whose key the file leaves out where it has no value."""
    return field(default=None, metadata={LEFT_OUT: True})


def built(cls, data: dict, **parts):
    """`cls` from the JSON object `data`: each field from the key of its name (KeyError where it is missing, but for
    a field left out when None), or from `parts`, the views of its nested objects; a count, id or size that is not an
    integer (`37.0`, `true`: a hand edit) is a TypeError naming its key."""
    values = {}
    for found in fields(cls):
        if found.name in parts:
            value = parts[found.name]
        elif found.name in data or found.default is MISSING:
            value = data[found.name]
        else:
            continue  # left out: None
        if found.type is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"its {found.name!r} is {value!r}, not an integer")
        values[found.name] = value
    return cls(**values)


def as_json(view):
    """A view, or a part of one, as the JSON it was built from: objects with their keys in field order (a field left
    out when None left out), lists."""
    if is_dataclass(view):
        return {
            found.name: as_json(getattr(view, found.name))
            for found in fields(view)
            if not (found.metadata.get(LEFT_OUT) and getattr(view, found.name) is None)
        }
    if isinstance(view, tuple | list):
        return [as_json(item) for item in view]
    if isinstance(view, dict):
        return {key: as_json(value) for key, value in view.items()}
    return view


def not_this_workflows(path: str, what: str, error: Exception) -> DataError:
    """The refusal of a `what` (a manifest) with a part missing, or not of the kind this workflow writes (`error`
    says which)."""
    return DataError(f"{path}: not a {what} of this workflow ({error!r}); rerun to rebuild it")


def read_view(path: str, what: str, view):
    """The `view` (a class with `from_json`) of the JSON file at `path`, a `what`; a damaged file, or one with a key
    missing or of another kind, is refused naming the file and the key."""
    data = read_json(path, what)
    try:
        return view.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise not_this_workflows(path, what, error) from error
