"""The config of a run continued from a tiny base, for the unit tests of continued pretraining (a module of its own:
tests/helpers.py is also imported where the pipeline's config validation is not installed, by the HPU contract
tests)."""

import yaml
from helpers import REPO

from snakebert.config_validation import validate_config


def continued_config(base: str, **model) -> dict:
    """The default config with config/continue.yaml over it, `base` as its init_from and `model` keys over that, its
    lengths sized to the tiny bases' 32 positions; validated, its defaults filled in."""
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    for section, values in yaml.safe_load((REPO / "config/continue.yaml").read_text()).items():
        config[section] = {**config.get(section, {}), **values}
    config["model"] = {**config["model"], "init_from": base, **model}
    config["pretrain"]["phases"] = [{"block_size": 32, "fraction": 1.0}]
    config["data"]["block_size"] = 32
    for task in config["finetune"]["tasks"]:
        task["recipe"]["max_length"] = 32
    validate_config(config)
    return config
