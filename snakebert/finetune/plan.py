"""The fine-tuning plan the workflow makes when it is parsed: the models each task is fine-tuned from and what each
job is given (config_checks.py checks the `finetune` section before any job runs)."""

from pathlib import Path

PRETRAINED_MODEL = "results/model"
OWN_MODELS = {"pretrained": "pretrained", "random": "random_init"}  # name in the results -> kind
BASELINE_NAMES = ("majority", "tfidf")
RECIPE_KEY = "recipe"


def models(finetune: dict) -> dict[str, tuple[str, str]]:
    """{model name: (kind, folder or Hub id)}: the pretrained model, the same architecture from random
    initialisation, then every `compare` model, in config order."""
    own = {name: (kind, PRETRAINED_MODEL) for name, kind in OWN_MODELS.items()}
    return {**own, **{entry["name"]: ("reference", entry["model"]) for entry in finetune["compare"]}}


def model_inputs(source: str) -> list[str]:
    """A starting point's files as the workflow tracks them: its folder, if it is one (a Hub id has none)."""
    return [source] if source == PRETRAINED_MODEL or Path(source).is_dir() else []


def task_data(task: dict) -> dict:
    """What the task's data depend on: its entry without the recipe (a recipe change reruns no data job)."""
    return {key: value for key, value in task.items() if key != RECIPE_KEY}


def task_recipe(finetune: dict, task: dict) -> dict:
    return {**finetune[RECIPE_KEY], **task[RECIPE_KEY]}


def task_files(task: dict) -> list[str]:
    """The local files a `files` task reads (a change reruns it)."""
    return [task[split] for split in ("train", "validation", "test") if task["type"] == "files" and task[split]]
