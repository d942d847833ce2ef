"""The config the workflow runs, made once when it is read: validated against the schema with its defaults filled in
(config_validation.py), checked beyond the schema (config_checks.py), and its `model` section resolved against a
folder base's config (training/base_model.py; a Hub base's is the job's to read). The first problem is raised as a
ConfigError naming its keys, redacted (redaction.py), which the Snakefile reports before any job. Like what it
calls, this module imports neither torch, transformers nor datasets."""

import copy

from .config_checks import config_problems
from .config_validation import ConfigError, validate_config
from .errors import DataError
from .redaction import redact
from .training.base_model import resolved


def resolved_config(config: dict) -> dict:
    """`config` as the workflow and its jobs read it, or a ConfigError naming the first problem; `config` itself is
    left as it is."""
    checked = copy.deepcopy(config)
    validate_config(checked)
    for problem in config_problems(checked):
        raise ConfigError(redact(problem))
    try:
        model = resolved(checked["model"])  # a folder base's settings in place of null
    except DataError as error:
        raise ConfigError(redact(str(error))) from None
    return {**checked, "model": model}
