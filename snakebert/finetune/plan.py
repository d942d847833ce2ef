"""The fine-tuning plan the workflow makes when it is parsed: the models each task is fine-tuned from, what each job
is given, and the checks of `finetune` that fail before any job runs."""

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


def config_problems(finetune: dict, positions: int) -> list[str]:
    """Names that collide (two tasks, two compared models, a compared model named as one of ours or a baseline), a
    hub task without a data set, and inputs longer than the model's `positions`."""
    problems = []
    for index, task in enumerate(finetune["tasks"]):
        length = task_recipe(finetune, task)["max_length"]
        if length > positions:
            problems.append(
                f"config finetune.tasks[{index}] ({task['name']}): recipe max_length {length} is larger than "
                f"model.max_position_embeddings ({positions})"
            )
    tasks = [task["name"] for task in finetune["tasks"]]
    for name in sorted({name for name in tasks if tasks.count(name) > 1}):
        problems.append(f"config finetune.tasks: name {name!r} is used twice")
    compared = [entry["name"] for entry in finetune["compare"]]
    for index, name in enumerate(compared):
        if name in OWN_MODELS or name in BASELINE_NAMES:
            problems.append(f"config finetune.compare[{index}]: name {name!r} is reserved for the results' own rows")
        elif compared.count(name) > 1:
            problems.append(f"config finetune.compare[{index}]: name {name!r} is used twice")
    for index, task in enumerate(finetune["tasks"]):
        if task["type"] == "hub" and not (task["preset"] or task["path"]):
            problems.append(f"config finetune.tasks[{index}] ({task['name']}): a hub task needs `path` or a `preset`")
    return problems
