"""The fine-tuning plan the workflow makes when it is parsed: the models each task is fine-tuned from, the runs of
each (every rate of the task's learning-rate grid with the search's seeds, then the rate chosen on validation, written
once in the model's chosen.json, with the remaining seeds) and what each job is given (config_checks.py checks the
`finetune` section before any job runs)."""

from pathlib import Path

from ..training.training_metrics import MODEL_FOLDER as PRETRAINED_MODEL
from .baselines_file import BASELINES_FILE
from .kinds import PRETRAINED, RANDOM_INIT, REFERENCE
from .probe_file import PROBE_FILE
from .run_file import RUN_FILE

RANDOM = "random"  # the same architecture from random initialisation, as the results name it
OWN_MODELS = {"pretrained": PRETRAINED, RANDOM: RANDOM_INIT}  # name in the results -> kind
BASE = "base"  # the `model.init_from` base as it is, the row a continued run's model is compared with
# every problem's baselines (baselines.py; a test holds them equal)
BASELINE_NAMES = ("majority", "tfidf", "word_tags", "squad_sentence")
RECIPE_KEY = "recipe"
CHOSEN = "chosen"  # the run folder of the seeds past the search's, at the rate the search chose on validation
RATE_PREFIX = "lr-"  # the run folder of one rate of the grid: lr-0.003
FOLD_PREFIX = "fold-"  # a fold's folder (split.folds), in the prepared task and in the paths of what each fold made
CHECKPOINTS = "checkpoints/finetune"  # every run's checkpoints lie under it: {task}/{model}/{rate}/[fold-F/]seed-N
# The fine-tuning jobs of all tasks together that a config may plan (task_job_count): each run and dry run of the
# workflow plans every job, 2 to 3 ms each on 2 cores (6 to 9 s for 2,000), and 2,000 are 19 times the 105 jobs of
# the classic GLUE config (config/bert-base-dl1.yaml).
MAX_JOBS = 2000


def models(finetune: dict, base: str | None = None) -> dict[str, tuple[str, str]]:
    """{model name: (kind, folder or Hub id)}: the pretrained model, the same architecture from random
    initialisation, the `model.init_from` base as it is (a continued run), then every `compare` model, in config
    order."""
    own = {name: (kind, PRETRAINED_MODEL) for name, kind in OWN_MODELS.items()}
    continued = {BASE: (REFERENCE, base)} if base else {}
    return {**own, **continued, **{entry["name"]: (REFERENCE, entry["model"]) for entry in finetune["compare"]}}


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


def fold_folder(fold: int) -> str:
    return f"{FOLD_PREFIX}{fold}"


def fold_ids(folds: int | None) -> list[int]:
    """The folds of `split.folds`, 1 to k; none without folds."""
    return list(range(1, folds + 1)) if folds else []


def fold_segments(task: dict) -> list[str]:
    """The path segment of each of the task's folds, in fold order (fold-1/, ...): one empty segment without folds."""
    return [f"{fold_folder(fold)}/" for fold in fold_ids(task["split"]["folds"])] or [""]


def learning_rates(recipe: dict) -> list[float]:
    """The recipe's learning-rate grid, in config order: one rate, or a list of them."""
    rates = recipe["learning_rate"]
    return [float(rate) for rate in (rates if isinstance(rates, list) else [rates])]


def rate_folder(rate: float) -> str:
    return f"{RATE_PREFIX}{float(rate)!r}"


def folder_rate(folder: str) -> float:
    """The rate a run folder of the grid names (rate_folder's inverse)."""
    return float(folder.removeprefix(RATE_PREFIX))


def run_recipe(recipe: dict, folder: str) -> dict:
    """What a run of `folder` is given: a run of the grid its own rate alone (another rate added to the grid adds runs
    and reruns none), a chosen run the whole grid."""
    return recipe if folder == CHOSEN else {**recipe, "learning_rate": folder_rate(folder)}


def search_seeds(finetune: dict, recipe: dict) -> int:
    """How many seeds (1..N) each rate of the grid is tried with: every seed for a grid of one rate."""
    if len(learning_rates(recipe)) == 1 or finetune["search_seeds"] is None:
        return finetune["seeds"]
    return finetune["search_seeds"]


def search_runs(task: dict, finetune: dict, recipe: dict, model: str) -> list[str]:
    """A model's runs at every rate of the grid, with the search's seeds, on every fold."""
    return [
        RUN_FILE.format(task=task["name"], model=model, rate=rate_folder(rate), fold=fold, seed=seed)
        for rate in learning_rates(recipe)
        for fold in fold_segments(task)
        for seed in range(1, search_seeds(finetune, recipe) + 1)
    ]


def model_runs(task: dict, finetune: dict, recipe: dict, model: str) -> list[str]:
    """All of a model's runs: the search's, then the remaining seeds at the rate it chose, on every fold."""
    chosen = range(search_seeds(finetune, recipe) + 1, finetune["seeds"] + 1)
    return search_runs(task, finetune, recipe, model) + [
        RUN_FILE.format(task=task["name"], model=model, rate=CHOSEN, fold=fold, seed=seed)
        for fold in fold_segments(task)
        for seed in chosen
    ]


def model_run_count(task: dict, finetune: dict, recipe: dict) -> int:
    """How many runs model_runs lists for one model, counted without listing them."""
    searched = search_seeds(finetune, recipe)
    chosen = max(finetune["seeds"] - searched, 0)
    return len(fold_segments(task)) * (len(learning_rates(recipe)) * searched + chosen)


def task_job_count(task: dict, finetune: dict, model_count: int) -> int:
    """The jobs of one task with `model_count` models: its preparation and summary, its baselines (a job per fold),
    each model's runs and the choice of its rate, and its linear probe (a job per fold, every seed)."""
    folds = len(fold_segments(task))
    tuned = "finetune" in finetune["protocols"]
    runs = model_run_count(task, finetune, task_recipe(finetune, task)) + 1 if tuned else 0
    probes = folds if "linear_probe" in finetune["protocols"] else 0
    return 2 + folds + model_count * (runs + probes)


def linear_probe_runs(task: str, finetune: dict, model: str, fold: str) -> list[str]:
    """A model's linear-probe results on one fold (its path segment), seed by seed (one job writes them all)."""
    return [PROBE_FILE.format(task=task, model=model, fold=fold, seed=seed) for seed in range(1, finetune["seeds"] + 1)]


def baseline_results(task: dict) -> list[str]:
    """The baselines' results on each of the task's folds."""
    return [BASELINES_FILE.format(task=task["name"], fold=fold) for fold in fold_segments(task)]
