"""What a local model folder named by config must hold, read from its files alone (JSON and the weights' headers, no
transformers), so that the workflow's parse checks every folder a run names (a continued run's base, the tokenizer's
base, each compared model) whole, before any job: a folder, not a file or a link that leads nowhere; a config of values
the model can take (model_config_values.py) that asks for no remote code; weights whose shapes are those its config
asks for (files/weight_shapes.py, encoder_weights.py); a tokenizer that holds a vocabulary (AutoTokenizer would
otherwise fall back to a tokenizer of a few tokens and make every word unknown, silently), asks for no remote code
either, and whose ids fit the embeddings (tokenizer_files.py); and the positions its inputs may use. The jobs check
the tokenizer again before they load one. A name that is not a folder must be a Hub id, which the jobs read."""

import json
import os
from pathlib import Path

from .encoder_weights import ENCODERS, shape_problem
from .errors import DataError
from .files.weight_shapes import weight_shapes
from .model_config_values import RESERVES_POSITIONS, config_value_problem
from .tokenizer_files import SENTENCEPIECE_FILES, VOCABULARIES, ids_problem, read_json, vocabulary

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json", *SENTENCEPIECE_FILES)
TOKENIZER_SETTINGS = "tokenizer_config.json"


def local_folder(name: str, what: str) -> Path | None:
    """The folder `name` (the config key `what` names it); None for a Hub id, which the jobs read (the parse is
    offline). Refused: a file, a link that leads to no folder (broken, or a loop), and a name that is neither a
    folder nor a Hub id."""
    folder = Path(name)
    if folder.is_dir():
        return folder
    if os.path.lexists(name):
        kind = "a file" if folder.is_file() else "a symlink that leads to no folder (broken, or a loop)"
        raise DataError(f"{what} {name!r} is {kind}, not a model folder: name the model's folder, or its Hub id")
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(name)
    except HFValidationError:
        raise DataError(
            f"{what} {name!r} is neither a folder (there is none at {os.path.abspath(name)}) nor a Hub id "
            "(a name, or owner/name): name the model's folder, or its Hub id"
        ) from None
    return None


def remote_code_problem(found, file) -> str | None:
    """A config or tokenizer settings file (`found`, read from `file`) that asks for code of its own (auto_map)."""
    if isinstance(found, dict) and found.get("auto_map"):
        return (
            f"its {file} asks for remote code (auto_map), which is never run, nor carried into the run's outputs; "
            "use a model whose files ask for none"
        )
    return None


def tokenizer_vocabulary(folder: Path) -> tuple[Path, int]:
    """The file holding the vocabulary of the tokenizer saved in `folder` and the ids it gives; a DataError when the
    folder holds no tokenizer files, files without a vocabulary, or settings that ask for remote code."""
    if not any((folder / file).is_file() for file in TOKENIZER_FILES):
        raise DataError(
            f"the folder holds no tokenizer (none of {', '.join(TOKENIZER_FILES)}); save the model's tokenizer into "
            "it beside the weights (tokenizer.save_pretrained)"
        )
    settings = folder / TOKENIZER_SETTINGS
    problem = remote_code_problem(read_json(settings), settings) if settings.is_file() else None
    if problem:
        raise DataError(problem)
    found = vocabulary(folder)
    if found is None:
        raise DataError(
            f"its tokenizer files hold no vocabulary (none of {VOCABULARIES}, or one of no tokens but its special "
            "ones): AutoTokenizer would make a tokenizer of its few special tokens; save the whole tokenizer into "
            "the folder (tokenizer.save_pretrained)"
        )
    return found


def tokenizer_problem(name: str, what: str) -> str | None:
    """Why the folder `name` (the config key `what` names it) cannot give a tokenizer; None when it can, or when it
    is no folder (a Hub id: the job loads it)."""
    folder = Path(name)
    if not folder.is_dir():
        return None
    try:
        tokenizer_vocabulary(folder)
    except DataError as error:
        return f"{what} {name!r}: {error}"
    return None


def folder_config(name: str, what: str) -> dict | None:
    """The config.json of the folder `name`; None for a Hub id (read by the job: the parse is offline)."""
    folder = Path(name)
    if not folder.is_dir():
        return None
    path = folder / "config.json"
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise DataError(f"{what} {name!r}: cannot read {path} ({error}): it is not a model folder") from None
    if not isinstance(found, dict):
        raise DataError(f"{what} {name!r}: {path} is not a JSON object: it is not a model folder")
    return found


def contents_problem(folder: Path, found: dict) -> str | None:
    """The weights and the tokenizer of the model folder `folder` against its config `found`: the weights whole and,
    for a supported architecture, of the shapes the config asks for; a tokenizer with a vocabulary whose ids fit the
    embeddings."""
    config = folder / "config.json"
    try:
        weights, shapes = weight_shapes(folder)
        architecture = found.get("model_type")
        problem = shape_problem(architecture, found, shapes, weights, config) if architecture in ENCODERS else None
        if problem:
            return problem
        file, ids = tokenizer_vocabulary(folder)
    except DataError as error:
        return str(error)
    fit = ids_problem(ids, found["vocab_size"]) if type(found.get("vocab_size")) is int else None
    if fit:
        return f"its tokenizer ({file}) {fit}: it is not the model's own; save the model's tokenizer into the folder"
    return None


def checked_folder(name: str, what: str) -> dict | None:
    """The config.json of the model folder `name` (the config key `what` names it), once the folder is checked whole
    (see the module); None for a Hub id."""
    folder = local_folder(name, what)
    if folder is None:
        return None
    found = folder_config(name, what)
    config = folder / "config.json"
    problem = remote_code_problem(found, config) or config_value_problem(found, config)
    problem = problem or contents_problem(folder, found)
    if problem:
        raise DataError(f"{what} {name!r}: {problem}")
    return found


def usable_positions(found: dict) -> int:
    """The positions an input can use in a model of config `found` (config.json's keys): its position embeddings less
    the rows RoBERTa's numbering reserves (the padding id's and those before it: 2 of roberta-base's 514)."""
    reserved = found.get("pad_token_id", 1) + 1 if found.get("model_type") in RESERVES_POSITIONS else 0
    return found["max_position_embeddings"] - reserved
