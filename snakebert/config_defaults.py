"""The defaults that the workflow's schema validation fills into a config section, for code run outside it."""

from pathlib import Path

import yaml

SCHEMA = Path(__file__).resolve().parents[1] / "config" / "schema.yaml"


def _filled(spec: dict):
    """A property's default, with the defaults of its own properties filled in (as the validation does)."""
    default = spec["default"]
    if isinstance(default, dict) and "properties" in spec:
        return {**_defaults(spec["properties"]), **default}
    return default


def _defaults(properties: dict) -> dict:
    return {key: _filled(spec) for key, spec in properties.items() if "default" in spec}


def schema_defaults(section: str) -> dict:
    return _defaults(yaml.safe_load(SCHEMA.read_text())["properties"][section]["properties"])
