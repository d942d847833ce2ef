"""The classic DL1 configs are merged over config/config.yaml (Snakemake's `configfile:` then `--configfile`), so
each must state every setting the small default changes from the schema's defaults: nothing of the CPU demo (its
architecture, dropout, phases, optimiser) may leak into a DL1 run."""

import pytest
import yaml
from helpers import REPO

from snakebert.config_defaults import schema_defaults

DEFAULT = yaml.safe_load((REPO / "config/config.yaml").read_text())


def leaks(classic: dict) -> list[str]:
    """The settings of the default config that reach `classic` merged over it with another value than the schema's."""
    found = []
    for section, values in DEFAULT.items():
        if isinstance(values, dict):
            defaults, stated = schema_defaults(section), classic.get(section, {})
            found += [
                f"{section}.{key}" for key, value in values.items() if key not in stated and defaults.get(key) != value
            ]
    return found


@pytest.mark.parametrize("name", ["bert-base-dl1.yaml", "bert-base-dl1-tutorial.yaml"])
def test_a_classic_config_states_every_setting_the_default_changes(name):
    classic = yaml.safe_load((REPO / "config" / name).read_text())
    assert leaks(classic) == []
    assert classic["model"]["architecture"] == "bert"


def test_the_check_sees_a_leak():
    classic = yaml.safe_load((REPO / "config/bert-base-dl1-tutorial.yaml").read_text())
    del classic["pretrain"]["phases"]
    assert leaks(classic) == ["pretrain.phases"]
