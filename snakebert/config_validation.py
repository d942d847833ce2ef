"""The config checked against config/schema.yaml, with the schema's defaults filled in (as Snakemake's `validate`
does), and refusals that name the key and show at most a short value: never a secret, never a huge value.

Before the schema sees it, the config is walked once: a key named like a secret (`token`, `password`, `secret`,
`key`, ...) is refused without its value (a token belongs in the environment, not in a file that is logged and
fingerprinted), and a config of more than MAX_VALUES values (YAML aliases that expand) is refused at once.
"""

import re

import jsonschema
from jsonschema import Draft202012Validator, validators

from .config_defaults import load_schema
from .redaction import short

SECRET_WORDS = {"token", "password", "passwd", "secret", "key", "apikey", "credential", "credentials"}
MAX_VALUES = 100_000  # every real config holds a few hundred


class ConfigError(ValueError):
    """A config the workflow refuses; the message names the key."""


def secret_like(name: str) -> bool:
    """`hf_token`, `api-key`, `Password`: a key whose last word is a secret's name."""
    return re.split(r"[_\-.\s]", str(name).lower())[-1] in SECRET_WORDS


def _walk(value, key: str, budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise ConfigError(f"config: more than {MAX_VALUES} values (YAML anchors and aliases that expand?)")
    if isinstance(value, dict):
        for name, item in value.items():
            path = f"{key}.{name}".lstrip(".")
            if secret_like(name):
                raise ConfigError(
                    f"config {path}: a key named like a secret is refused (its value is not shown); "
                    "a Hub token goes in the environment (HF_TOKEN) or `huggingface-cli login`, a tracker's "
                    "(WANDB_API_KEY, MLFLOW_TRACKING_TOKEN) in the environment, never in a config"
                )
            _walk(item, path, budget)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, f"{key}[{index}]", budget)


def check_keys(config: dict) -> None:
    """Refuse secret-named keys and configs that expand past MAX_VALUES values."""
    _walk(config, "", [MAX_VALUES])


def key_path(path) -> str:
    """`pretrain.phases[0].block_size` from a jsonschema path."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".") or "(top level)"


def _with_defaults(validator_class):
    """A validator that fills each property's default before checking it (the jsonschema FAQ's recipe)."""
    check_properties = validator_class.VALIDATORS["properties"]

    def fill_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, spec in properties.items():
                if "default" in spec:
                    instance.setdefault(name, spec["default"])
        yield from check_properties(validator, properties, instance, schema)

    return validators.extend(validator_class, {"properties": fill_defaults})


def validate_config(config: dict) -> None:
    """Fill the schema's defaults into `config` in place, or raise ConfigError naming the first bad key."""
    check_keys(config)
    schema = load_schema()
    error = jsonschema.exceptions.best_match(_with_defaults(Draft202012Validator)(schema).iter_errors(config))
    if error is not None:
        raise ConfigError(f"config {key_path(error.absolute_path)}: {short(error.message)}")
