"""What a local model folder named by config must hold, read from its files alone (JSON, no transformers): a tokenizer
beside the weights (AutoTokenizer would otherwise fall back to a tokenizer of a few tokens and make every word
unknown, silently) and the positions its inputs may use. The workflow's parse checks every folder a run names with
it (a continued run's base, each compared model), and the jobs check again before they load one."""

import json
from pathlib import Path

from .errors import DataError

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json", "spiece.model")
RESERVES_POSITIONS = ("roberta", "xlm-roberta")  # position rows numbered from the padding id's + 1


def tokenizer_problem(name: str, what: str) -> str | None:
    """Why the folder `name` (the config key `what` names it) cannot give a tokenizer; None when it can, or when it
    is no folder (a Hub id: the job loads it)."""
    folder = Path(name)
    if folder.is_dir() and not any((folder / file).is_file() for file in TOKENIZER_FILES):
        return (
            f"{what} {name!r}: the folder holds no tokenizer (none of {', '.join(TOKENIZER_FILES)}); save the "
            "model's tokenizer into it beside the weights (tokenizer.save_pretrained)"
        )
    return None


def folder_config(name: str, what: str) -> dict | None:
    """The config.json of the folder `name`; None for a Hub id (read by the job: the parse is offline)."""
    folder = Path(name)
    if not folder.is_dir():
        return None
    path = folder / "config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataError(f"{what} {name!r}: cannot read {path} ({error}): it is not a model folder") from None


def usable_positions(found: dict) -> int:
    """The positions an input can use in a model of config `found` (config.json's keys): its position embeddings less
    the rows RoBERTa's numbering reserves (the padding id's and those before it: 2 of roberta-base's 514)."""
    reserved = found.get("pad_token_id", 1) + 1 if found.get("model_type") in RESERVES_POSITIONS else 0
    return found["max_position_embeddings"] - reserved
