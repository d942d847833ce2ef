"""The defaults that the workflow's schema validation fills into a config section, for code run outside it."""

from pathlib import Path

import yaml

SCHEMA = Path(__file__).resolve().parents[1] / "config" / "schema.yaml"


def schema_defaults(section: str) -> dict:
    properties = yaml.safe_load(SCHEMA.read_text())["properties"][section]["properties"]
    return {key: spec["default"] for key, spec in properties.items() if "default" in spec}
