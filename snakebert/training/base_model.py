"""The base model of a continued run (`model.init_from`, a folder or a Hub id): its architecture and settings read from
its config.json under the `model` section's names, so that the parse-time checks and the training job see the same
numbers. A `model` key left null takes the base's value; a key set to another value than the base's is refused, naming
both. A config that asks for remote code is refused (it is never run), as are an architecture outside the table and a
value the model cannot take. A folder base is checked whole when the workflow is read (model_folders.checked_folder:
its config, its weights' shapes, its tokenizer); a Hub base's config by the job. Reads JSON only: the workflow's parse
imports neither torch nor transformers."""

from pathlib import Path

from ..architectures import ARCHITECTURE_FACTS
from ..errors import DataError
from ..files.checksum import files_digest
from ..model_config_values import config_value_problem
from ..model_folders import checked_folder, folder_config, remote_code_problem, usable_positions
from ..named_loading import load_named

INIT_FROM = "init_from"
COMMON = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "max_position_embeddings")
COMMON += ("initializer_range",)


def base_config(name: str) -> dict | None:
    """The base's config.json, if `name` is a folder; None for a Hub id (read by the job: the parse is offline)."""
    return folder_config(name, "model.init_from")


def base_settings(name: str, found: dict) -> dict:
    """The `model` section a base's config (`found`, its config.json) amounts to: its architecture and every
    setting."""
    problem = remote_code_problem(found, "config.json")
    if problem:
        raise DataError(f"model.init_from {name!r}: {problem}")
    architecture = found.get("model_type")
    if not isinstance(architecture, str) or architecture not in ARCHITECTURE_FACTS:
        raise DataError(
            f"model.init_from {name!r}: architecture {architecture!r} is not supported; supported: "
            f"{', '.join(ARCHITECTURE_FACTS)}"
        )
    problem = config_value_problem(found, "config.json")
    if problem:
        raise DataError(f"model.init_from {name!r}: {problem}")
    keys = {key: key for key in COMMON} | ARCHITECTURE_FACTS[architecture].dropouts
    missing = sorted(theirs for theirs in keys.values() if theirs not in found)
    if missing:
        raise DataError(f"model.init_from {name!r}: its config has no {', '.join(missing)}")
    settings = {"architecture": architecture, **{ours: found[theirs] for ours, theirs in keys.items()}}
    return {**settings, "max_position_embeddings": usable_positions(found)}  # as model.max_position_embeddings counts


def conflicts(model: dict, base: dict) -> list[str]:
    """Each `model` key set to another value than the base's."""
    return [
        f"config model.{key} is {model[key]!r}, but the model.init_from base has {value!r} (leave it null to take the "
        "base's)"
        for key, value in base.items()
        if model[key] is not None and model[key] != value
    ]


def null_keys(model: dict) -> list[str]:
    return [key for key, value in model.items() if key != INIT_FROM and value is None]


def base_problems(model: dict) -> list[str]:
    """The `model` section against its base: the base unreadable or refused, keys that disagree with it, and null keys
    without a base to take their values from."""
    if not model[INIT_FROM]:
        return [
            f"config model.{key} is null, which takes the value of a model.init_from base, and model.init_from is "
            "not set"
            for key in null_keys(model)
        ]
    try:
        found = checked_folder(model[INIT_FROM], "model.init_from")
        return [] if found is None else conflicts(model, base_settings(model[INIT_FROM], found))
    except DataError as error:
        return [f"config {error}"]


def resolved(model: dict, found: dict | None = None) -> dict:
    """The `model` section with its null keys filled from its base's config (`found`, else read here if the base is a
    folder); unchanged without a base, or with a Hub id and no `found` (the job fills it)."""
    if not model[INIT_FROM]:
        return model
    found = base_config(model[INIT_FROM]) if found is None else found
    if found is None:
        return model
    base = base_settings(model[INIT_FROM], found)
    problems = conflicts(model, base)
    if problems:
        raise DataError(problems[0])
    return {**model, **base}


def job_model(model: dict) -> dict:
    """The training job's `model` section, resolved against its base's config however the base is named (a Hub id's
    is read here, the first time anything needs it)."""
    if not model[INIT_FROM]:
        return model
    from transformers import PretrainedConfig

    found = load_named(lambda name: PretrainedConfig.get_config_dict(name)[0], model[INIT_FROM], "model.init_from")
    return resolved(model, found)


def base_digest(name: str) -> str:
    """What the base is, for the checkpoint fingerprint: a folder's files (weights, config, tokenizer), by SHA-256;
    a Hub id as named."""
    folder = Path(name)
    if not folder.is_dir():
        return name
    return files_digest(sorted(path for path in folder.iterdir() if path.is_file()))
