"""The config's checks and resolution, made once when the workflow is read (snakebert/config_resolution.py): the
schema's defaults filled in, every check beyond the schema, the first refusal raised as one error, redacted, and the
config handed in left as it was. What each check refuses is tested in test_config_validation.py and
test_config_checks.py; a folder base's resolution in test_init_from.py."""

import copy

import pytest
import yaml
from helpers import REPO

from snakebert.config_resolution import resolved_config
from snakebert.config_validation import ConfigError


def default_config() -> dict:
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def test_the_resolved_config_has_the_schemas_defaults_and_the_given_one_is_left_as_it_was():
    given = default_config()
    assert "tracking" not in given
    kept = copy.deepcopy(given)
    config = resolved_config(given)
    assert given == kept
    assert config["tracking"]["trackers"] == ["tensorboard"] and config["model"]["init_from"] is None


def test_a_refusal_of_the_schema_and_one_beyond_it_are_one_error_naming_the_key():
    config = default_config()
    config["pretrain"]["seed"] = 2**32
    with pytest.raises(ConfigError, match=r"^config pretrain.seed: 4294967296 is greater than the maximum"):
        resolved_config(config)
    config = default_config()
    config["model"].update(hidden_size=33, num_attention_heads=2)
    with pytest.raises(ConfigError, match=r"^config model.hidden_size \(33\) is not a multiple of"):
        resolved_config(config)


def test_a_refusal_beyond_the_schema_is_redacted():
    token = "hf_" + "Q" * 34  # a Hub token's shape, as a source's name
    config = default_config()
    config["sources"] = [{**config["sources"][0], "name": token}] * 2
    with pytest.raises(ConfigError) as refused:
        resolved_config(config)
    assert str(refused.value) == "config sources: name 'hf_***' is used twice"
