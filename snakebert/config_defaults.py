"""The config's schema (config/schema.yaml), read once per process, and the defaults that the workflow's schema
validation fills into a config section, for code run outside it."""

import copy
import functools
from pathlib import Path

import yaml

SCHEMA = Path(__file__).resolve().parents[1] / "config" / "schema.yaml"


@functools.cache
def _parsed_schema() -> dict:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where PyYAML has it: every parse reads this
    return yaml.load(SCHEMA.read_text(), Loader=loader)


def load_schema() -> dict:
    """config/schema.yaml, parsed once per process; a copy the caller may change."""
    return copy.deepcopy(_parsed_schema())


def _filled(spec: dict):
    """A property's default, with the defaults of its own properties filled in (as the validation does)."""
    default = spec["default"]
    if isinstance(default, dict) and "properties" in spec:
        return {**_defaults(spec["properties"]), **default}
    return default


def _defaults(properties: dict) -> dict:
    return {key: _filled(spec) for key, spec in properties.items() if "default" in spec}


def schema_defaults(section: str) -> dict:
    return _defaults(load_schema()["properties"][section]["properties"])
