"""The config's checks beyond the schema (config_validation.py), on the validated config with its defaults: numbers
that are not finite, and the constraints between keys and sections that a job would otherwise meet late (the model's
shape, the phases, the probes, fine-tuning, source names, the block size against the lengths, the Hub upload). The
workflow refuses the first problem when it is read, before any job."""

import math

from .finetune.plan import config_problems as finetune_problems
from .training.model_config import config_problems as model_problems
from .training.phases import config_problems as phase_problems
from .training.probes import prompt_problems

HUB_REPOS = ("tokenizer_repo", "dataset_repo", "model_repo")


def non_finite(value, key: str = "") -> list[str]:
    """The keys (dotted, [i] for list items) of every number in `value` that is infinite or NaN."""
    if isinstance(value, float) and not math.isfinite(value):
        return [key]
    if isinstance(value, dict):
        return [found for name, item in value.items() for found in non_finite(item, f"{key}.{name}".lstrip("."))]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in non_finite(item, f"{key}[{index}]")]
    return []


def repeated_source_names(sources: list[dict]) -> list[str]:
    names = [source["name"] for source in sources]
    repeated = sorted({name for name in names if names.count(name) > 1})
    return [f"config sources: name {repeated[0]!r} is used twice"] if repeated else []


def block_size_problems(config: dict) -> list[str]:
    """data.block_size against the longest input of the tokenizer and of the model."""
    block_size = config["data"]["block_size"]
    limits = {
        "tokenizer.model_max_length": config["tokenizer"]["model_max_length"],
        "model.max_position_embeddings": config["model"]["max_position_embeddings"],
    }
    return [
        f"config data.block_size ({block_size}) is larger than {key} ({limit})"
        for key, limit in limits.items()
        if block_size > limit
    ]


def hub_problems(hub: dict) -> list[str]:
    if hub["push"] and not any(hub[key] for key in HUB_REPOS):
        return [f"config hub.push is true but none of hub.{', hub.'.join(HUB_REPOS)} is set"]
    return []


def config_problems(config: dict) -> list[str]:
    """Every problem of the validated `config`, in the order the workflow reports them, each naming its keys; a
    number that is not finite is reported alone (the other checks compute with the numbers)."""
    infinite = [f"config {key}: a finite number is needed" for key in non_finite(config)]
    if infinite:
        return infinite
    max_positions = config["model"]["max_position_embeddings"]
    return [
        *prompt_problems(config["evaluate"]["probes"]),
        *model_problems(config["model"]),
        *phase_problems(config["pretrain"], config["data"]["block_size"], max_positions),
        *finetune_problems(config["finetune"], max_positions),
        *repeated_source_names(config["sources"]),
        *block_size_problems(config),
        *hub_problems(config["hub"]),
    ]
