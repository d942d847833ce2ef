"""The config checked against config/schema.yaml, with the schema's defaults filled in (as Snakemake's `validate`
does), and refusals that name the key and show at most a short value: never a secret, never a huge value.

Before the schema sees it, the config is walked once: a key named like a secret (`token`, `password`, `secret`,
`key`, ...) is refused without its value (a token belongs in the environment, not in a file that is logged and
fingerprinted), so is a URL with user information, a query or a fragment (`http://TOKEN@host/`, `?token=...`: no URL
of the config needs one), and a config of more than MAX_VALUES values (YAML aliases that expand) is refused at once.

JSON Schema counts `2.0` as an integer, and so does this validation: wherever the schema wants an integer (in any
nesting: items, if/then branches, $defs, oneOf/anyOf branches, `[integer, "null"]`) an integral float is written as
the int it stands for, so a job is never handed `60.0` steps; `2.5` stays refused, naming the key.
"""

import re

import jsonschema
from jsonschema import Draft202012Validator, validators

from .config_defaults import load_schema
from .redaction import credential_parts, short

SECRET_WORDS = {"token", "password", "passwd", "secret", "key", "apikey", "credential", "credentials"}
MAX_VALUES = 100_000  # every real config holds a few hundred
PATTERN_KEYS = ("clean.strip_patterns[",)  # values that are regular expressions, never locations
CREDENTIALS = (
    "a Hub token goes in the environment (HF_TOKEN) or `huggingface-cli login`, a tracker's (WANDB_API_KEY, "
    "MLFLOW_TRACKING_TOKEN, or MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD) in the environment, never in a "
    "config"
)


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
                    f"config {path}: a key named like a secret is refused (its value is not shown); {CREDENTIALS}"
                )
            _walk(item, path, budget)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, f"{key}[{index}]", budget)
    elif isinstance(value, str) and not key.startswith(PATTERN_KEYS) and credential_parts(value):
        raise ConfigError(
            f"config {key}: a URL with {' and '.join(credential_parts(value))} is refused (its value is not shown; "
            f"no URL of the config needs one): {CREDENTIALS}"
        )


def check_keys(config: dict) -> None:
    """Refuse secret-named keys, URLs that can carry credentials, and configs that expand past MAX_VALUES values."""
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


def _int_only(validator_class):
    """A validator whose `integer` is a Python int alone: there an integral float is a type error, with its path."""
    ints = validator_class.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    )
    return validators.extend(validator_class, type_checker=ints)


def _integral_floats(errors):
    """The paths of the integral floats (`2.0`) where a schema, or a branch of one, wants an integer."""
    for error in errors:
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        integral = isinstance(error.instance, float) and error.instance.is_integer()
        if error.validator == "type" and "integer" in types and integral and error.absolute_path:
            yield error.absolute_path
        yield from _integral_floats(error.context)


def normalise_integers(config: dict, schema: dict) -> None:
    """Write int(value) in `config`, in place, wherever `schema` wants an integer and the config holds an integral
    float (the schema's own reading of `2.0`); any other value is left to the validation."""
    for path in list(_integral_floats(_int_only(Draft202012Validator)(schema).iter_errors(config))):
        *parents, last = path
        holder = config
        for part in parents:
            holder = holder[part]
        holder[last] = int(holder[last])


def validate_config(config: dict) -> None:
    """Fill the schema's defaults into `config` in place, with integral floats as ints where the schema wants an
    integer, or raise ConfigError naming the first bad key."""
    check_keys(config)
    schema = load_schema()
    normalise_integers(config, schema)
    error = jsonschema.exceptions.best_match(_with_defaults(Draft202012Validator)(schema).iter_errors(config))
    if error is not None:
        raise ConfigError(f"config {key_path(error.absolute_path)}: {short(error.message)}")
