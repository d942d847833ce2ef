"""The config's checks beyond the schema (config_validation.py), all of them, on the validated config with its
defaults: numbers that are not finite, and the constraints between keys and sections that a job would otherwise meet
late (the inputs it names, none in the workflow's own outputs; every model folder it names, checked whole; the model
against its `init_from` base, the probes' prompts, the model's shape, the tokenizer keys a continued
run ignores, the phases and the corruption split, fine-tuning, source names, the task a `task` source reads, the
block size against the lengths, the Hub upload, the trackers installed). The architecture against the training
backend is the backend table's check (training/backends.backend_problems), made once the launch plan has resolved the
backend. The workflow refuses the first problem when it is read, before any job, so this module and what it imports
import neither torch, transformers nor datasets."""

import importlib.util
import math
from pathlib import Path
from urllib.parse import urlparse

from .config_defaults import schema_defaults
from .config_inputs import own_output_problems
from .data.languages import language_problems
from .errors import DataError
from .finetune.hub_task import PRESETS
from .finetune.plan import (
    BASE,
    BASELINE_NAMES,
    MAX_JOBS,
    OWN_MODELS,
    models,
    task_job_count,
    task_recipe,
)
from .finetune.problems import DEFAULT_PROBLEM, PROBLEMS
from .model_folders import checked_folder, local_folder, tokenizer_problem, usable_positions
from .tracking.tracked_run import MLFLOW_SERVER_SCHEMES
from .tracking.trackers import TRACKERS
from .training.base_model import INIT_FROM, base_problems, resolved
from .training.fill_mask import MASK
from .training.phases import plan_phases

HUB_REPOS = ("tokenizer_repo", "dataset_repo", "model_repo")
ADDED = "add_tokens"  # the one tokenizer key of a continued run


def non_finite(value, key: str = "") -> list[str]:
    """The keys (dotted, [i] for list items) of every number in `value` that is infinite or NaN."""
    if isinstance(value, float) and not math.isfinite(value):
        return [key]
    if isinstance(value, dict):
        return [found for name, item in value.items() for found in non_finite(item, f"{key}.{name}".lstrip("."))]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in non_finite(item, f"{key}[{index}]")]
    return []


def prompt_problems(probes: list[dict]) -> list[str]:
    """`evaluate.probes`: each prompt needs exactly one [MASK]."""
    return [
        f"config evaluate.probes[{index}]: the prompt {probe['prompt']!r} has {probe['prompt'].count(MASK)} {MASK}, "
        "exactly one is needed"
        for index, probe in enumerate(probes)
        if probe["prompt"].count(MASK) != 1
    ]


def model_problems(model: dict) -> list[str]:
    """The `model` section: what BertConfig accepts and BertModel refuses at its first use (unknown until the job, for
    a Hub base)."""
    width, heads = model["hidden_size"], model["num_attention_heads"]
    if width is not None and heads is not None and width % heads:
        return [f"config model.hidden_size ({width}) is not a multiple of model.num_attention_heads ({heads})"]
    return []


def phase_problems(settings: dict, data_block_size: int, max_positions: int | None) -> list[str]:
    """The `pretrain` settings' phases (as plan_phases refuses them, and each phase's blocks against the model's
    positions) and corruption split."""
    problems = []
    try:
        plan_phases(settings, data_block_size)
    except DataError as error:
        return [str(error)]
    for index, phase in enumerate(settings["phases"]):  # without phases, data.block_size is checked on its own
        if max_positions is not None and phase["block_size"] > max_positions:
            problems.append(
                f"config pretrain.phases[{index}].block_size ({phase['block_size']}) is larger than "
                f"model.max_position_embeddings ({max_positions})"
            )
    total = sum(settings["corruption"].values())
    if abs(total - 1) > 1e-9:
        problems.append(f"config pretrain.corruption: mask, random and keep add up to {total:g}, not 1")
    return problems


def finetune_problems(finetune: dict, positions: int | None) -> list[str]:
    """The `finetune` section: names that collide (two tasks, two compared models, a compared model named as one of
    ours or a baseline), a hub task without a data set, inputs longer than the model's `positions`, and a learning-rate
    search with more seeds than the runs."""
    problems = []
    for index, task in enumerate(finetune["tasks"]):
        length = task_recipe(finetune, task)["max_length"]
        if positions is not None and length > positions:
            problems.append(
                f"config finetune.tasks[{index}] ({task['name']}): recipe max_length {length} is larger than "
                f"model.max_position_embeddings ({positions})"
            )
    seeds, searched = finetune["seeds"], finetune["search_seeds"]
    if searched is not None and searched > seeds:
        problems.append(f"config finetune.search_seeds ({searched}) is more than finetune.seeds ({seeds})")
    tasks = [task["name"] for task in finetune["tasks"]]
    for name in sorted({name for name in tasks if tasks.count(name) > 1}):
        problems.append(f"config finetune.tasks: name {name!r} is used twice")
    compared = [entry["name"] for entry in finetune["compare"]]
    for index, name in enumerate(compared):
        if name in OWN_MODELS or name == BASE or name in BASELINE_NAMES:
            problems.append(f"config finetune.compare[{index}]: name {name!r} is reserved for the results' own rows")
        elif compared.count(name) > 1:
            problems.append(f"config finetune.compare[{index}]: name {name!r} is used twice")
    problems += compare_problems(finetune)
    for index, task in enumerate(finetune["tasks"]):
        if task["type"] == "hub" and not (task["preset"] or task["path"]):
            problems.append(f"config finetune.tasks[{index}] ({task['name']}): a hub task needs `path` or a `preset`")
        problems += fold_problems(f"config finetune.tasks[{index}] ({task['name']})", task)
        problems += metric_problems(f"config finetune.tasks[{index}] ({task['name']})", task)
        problems += tagging_problems(f"config finetune.tasks[{index}] ({task['name']})", task)
        problems += qa_problems(f"config finetune.tasks[{index}] ({task['name']})", task)
    return problems


def plan_size_problems(finetune: dict, base: str | None) -> list[str]:
    """More fine-tuning jobs than MAX_JOBS, counted without listing them (each parse makes the whole plan)."""
    count = len(models(finetune, base))
    jobs = sum(task_job_count(task, finetune, count) for task in finetune["tasks"])
    if jobs <= MAX_JOBS:
        return []
    return [
        f"config finetune: {jobs:,} fine-tuning jobs planned, more than the {MAX_JOBS:,} allowed: each of the "
        f"{len(finetune['tasks']):,} finetune.tasks runs each of {count:,} models (pretrained, random, a "
        "model.init_from base and finetune.compare) at each rate of its recipe.learning_rate, on each of its "
        "split.folds, with finetune.seeds seeds (finetune.search_seeds while searching); plan fewer tasks, compared "
        "models, rates, folds or seeds"
    ]


def task_problem(task: dict) -> str:
    """The task's problem: its `problem`, its preset's, else the default."""
    preset = PRESETS[task["preset"]].problem if task.get("preset") else None
    return task.get("problem") or preset or DEFAULT_PROBLEM


def metric_problems(where: str, task: dict) -> list[str]:
    """Metrics that do not measure the task's problem, which its jobs could only fail on after training."""
    problem = task_problem(task)
    wrong = [name for name in task.get("metrics") or () if name not in PROBLEMS[problem].metrics]
    if not wrong:
        return []
    return [f"{where}: metric {wrong[0]!r} does not measure a {problem} task; use {PROBLEMS[problem].fitting_metrics}"]


def tagging_problems(where: str, task: dict) -> list[str]:
    """Settings of word tagging on a task of another problem, and a second text beside tagged words."""
    tagging = task_problem(task) == "token_classification"
    if task.get("format") == "conll" and not tagging:
        return [f"{where}: format conll holds tagged words; set problem: token_classification"]
    if task.get("tag_scheme") and not tagging:
        return [f"{where}: tag_scheme is for tagged words; set problem: token_classification, or drop tag_scheme"]
    if tagging and task.get("text_pair_column"):
        return [f"{where}: a token_classification task tags the words of one text; drop text_pair_column"]
    return []


def qa_problems(where: str, task: dict) -> list[str]:
    """A files task without label_column (only SQuAD JSON files name their answers themselves), settings of question
    answering on a task of another problem, a question file that is not SQuAD JSON, JSON Lines or Parquet (a CSV cell
    holds no list of answers)."""
    answering = task_problem(task) == "extractive_qa"
    if task.get("type") == "files" and task.get("format") not in (None, "squad") and not task.get("label_column"):
        return [f"{where}: label_column is needed: the column of a {task.get('format')} file's labels"]
    if task.get("format") == "squad" and not answering:
        return [f"{where}: format squad holds questions and answers; set problem: extractive_qa"]
    if task.get("allow_unanswerable") is not None and not answering:
        return [f"{where}: allow_unanswerable is for questions; set problem: extractive_qa, or drop allow_unanswerable"]
    if answering and task.get("format") in ("csv", "conll"):
        return [f"{where}: an extractive_qa file is format squad (SQuAD JSON), jsonl or parquet (the Hub's squad rows)"]
    return []


def compare_problems(finetune: dict) -> list[str]:
    """Each compared model that is a local folder: checked whole (model_folders.checked_folder: its config, weights
    and tokenizer), and its positions hold every task's inputs (a Hub id is checked by its jobs, which can reach it;
    a name that is neither is refused)."""
    problems = []
    for index, entry in enumerate(finetune["compare"]):
        what = f"config finetune.compare[{index}].model"
        try:
            found = checked_folder(entry["model"], what)
        except DataError as error:
            problems.append(str(error))
            continue
        if found is None or "max_position_embeddings" not in found:
            continue
        positions = usable_positions(found)
        for number, task in enumerate(finetune["tasks"]):
            length = task_recipe(finetune, task)["max_length"]
            if length > positions:
                problems.append(
                    f"{what} {entry['model']!r}: its inputs hold at most {positions} positions, fewer than the recipe "
                    f"max_length {length} of finetune.tasks[{number}] ({task['name']}); lower the task's max_length"
                )
    return problems


def fold_problems(where: str, task: dict) -> list[str]:
    """`split.folds` carves every test split out of train: refused beside a test split of the task's own (a `files`
    task's `test`, a hub task's `test_split` or preset) or a `test_fraction`."""
    if task["split"]["folds"] is None:
        return []
    own = {"files": ("test",), "hub": ("test_split", "preset")}.get(task["type"], ())
    given = [key for key in own if task[key]]
    if given:
        return [
            f"{where}: split.folds tests each fold of train in turn, so it cannot be used beside a test split of "
            f"the task's own (`{given[0]}`): drop split.folds, or give the task no test split"
        ]
    if task["split"]["test_fraction"] > 0:
        return [f"{where}: split.folds makes the test splits, so split.test_fraction must be 0 (it is "
                f"{task['split']['test_fraction']:g})"]  # fmt: skip
    return []


def local_revision_problems(config: dict) -> list[str]:
    """A `revision` names a version of a Hub data set: beside a `path` that is a local folder it would be ignored."""
    entries = [(f"sources[{index}]", entry) for index, entry in enumerate(config["sources"])]
    entries += [(f"finetune.tasks[{index}]", entry) for index, entry in enumerate(config["finetune"]["tasks"])]
    return [
        f"config {key}.revision: {entry['revision']!r} names a version of a Hub data set, but path {entry['path']!r} "
        "is a local folder, which has none: drop the revision"
        for key, entry in entries
        if entry["type"] == "hub" and entry.get("revision") and entry.get("path") and Path(entry["path"]).is_dir()
    ]


def repeated_source_names(sources: list[dict]) -> list[str]:
    names = [source["name"] for source in sources]
    repeated = sorted({name for name in names if names.count(name) > 1})
    return [f"config sources: name {repeated[0]!r} is used twice"] if repeated else []


def task_source_problems(sources: list[dict], tasks: list[dict]) -> list[str]:
    """A `task` source reads the train split of a task of `finetune.tasks`, which folds would leave without one (each
    fold's train holds the other folds' test examples)."""
    named = {task["name"]: task for task in tasks}
    problems = []
    for index, source in enumerate(sources):
        if source["type"] != "task":
            continue
        where = f"config sources[{index}] ({source['name']!r})"
        if source["task"] not in named:
            problems.append(f"{where}: task {source['task']!r} is not among finetune.tasks ({', '.join(named)})")
        elif named[source["task"]]["split"]["folds"]:
            problems.append(
                f"{where}: task {source['task']!r} uses split.folds, so every example is in some fold's test split "
                "and no train text is held out of all of them; drop split.folds or the source"
            )
    return problems


def block_size_problems(config: dict, max_positions: int | None) -> list[str]:
    """data.block_size against the longest input of the tokenizer and of the model."""
    block_size = config["data"]["block_size"]
    limits = {
        "tokenizer.model_max_length": config["tokenizer"]["model_max_length"],
        "model.max_position_embeddings": max_positions,
    }
    return [
        f"config data.block_size ({block_size}) is larger than {key} ({limit})"
        for key, limit in limits.items()
        if limit is not None and block_size > limit
    ]


def tokenizer_problems(config: dict) -> list[str]:
    """A run continued from a base keeps the base's tokenizer: the keys that train one must keep their defaults, and
    only such a run adds words to a tokenizer (`add_tokens`)."""
    if not config["model"][INIT_FROM]:
        added = config["tokenizer"][ADDED]
        if not added:
            return []
        return [
            f"config tokenizer.add_tokens is {added}, but it adds words to a model.init_from base's tokenizer, and "
            "model.init_from is not set (a trained tokenizer learns the corpus's words itself)"
        ]
    defaults = schema_defaults("tokenizer")
    return [
        f"config tokenizer.{key} is {value!r}, but model.init_from keeps the base's tokenizer, which trains nothing: "
        f"leave it at its default ({defaults[key]!r}; config/continue.yaml does)"
        for key, value in config["tokenizer"].items()
        if value != defaults[key] and key != ADDED
    ]


def tokenizer_base_problems(name: str | None) -> list[str]:
    """`tokenizer.base`, if a folder: a tokenizer that holds a vocabulary and asks for no remote code (a Hub id is
    read by its job; a name that is neither is refused)."""
    what = "config tokenizer.base"
    try:
        problem = tokenizer_problem(name, what) if name and local_folder(name, what) else None
    except DataError as error:
        return [str(error)]
    return [problem] if problem else []


def near_dedup_problems(settings: dict) -> list[str]:
    """clean.near_dedup's bands take `rows` hashes each, out of the `hashes` of a signature."""
    bands, rows, hashes = settings["bands"], settings["rows"], settings["hashes"]
    if bands * rows <= hashes:
        return []
    return [
        f"config clean.near_dedup: bands x rows ({bands} x {rows} = {bands * rows}) is larger than hashes ({hashes})"
    ]


def hub_problems(hub: dict) -> list[str]:
    if hub["push"] and not any(hub[key] for key in HUB_REPOS):
        return [f"config hub.push is true but none of hub.{', hub.'.join(HUB_REPOS)} is set"]
    return []


def config_problems(config: dict) -> list[str]:
    """Every problem of the validated `config`, in the order the workflow reports them, each naming its keys; a
    number that is not finite is reported alone (the other checks compute with the numbers), and so is a fine-tuning
    plan past its bound (the other checks walk its tasks and models)."""
    infinite = [f"config {key}: a finite number is needed" for key in non_finite(config)]
    if infinite:
        return infinite
    too_many = plan_size_problems(config["finetune"], config["model"][INIT_FROM])
    if too_many:
        return too_many
    base = [*own_output_problems(config), *base_problems(config["model"])]
    base += tokenizer_base_problems(config["tokenizer"].get("base"))
    if base:
        return base
    model = resolved(config["model"])
    max_positions = model["max_position_embeddings"]
    return [
        *prompt_problems(config["evaluate"]["probes"]),
        *model_problems(model),
        *tokenizer_problems(config),
        *phase_problems(config["pretrain"], config["data"]["block_size"], max_positions),
        *finetune_problems(config["finetune"], max_positions),
        *repeated_source_names(config["sources"]),
        *task_source_problems(config["sources"], config["finetune"]["tasks"]),
        *local_revision_problems(config),
        *block_size_problems(config, max_positions),
        *near_dedup_problems(config["clean"]["near_dedup"]),
        *(language_problems(config["clean"]["languages"]) if config["clean"]["languages"] else []),
        *hub_problems(config["hub"]),
        *tracking_problems(config["tracking"]),
    ]


def tracking_problems(tracking: dict) -> list[str]:
    """Trackers the config asks for that this environment cannot import (an unknown name is the schema's refusal),
    and an MLflow tracking URI that is neither a local folder nor a tracking server's http(s) URL (one with
    credentials, of any kind, is the validation's refusal: check_keys)."""
    problems = [
        f"config tracking.trackers: {name!r} is not installed ({TRACKERS[name].install})"
        for name in tracking["trackers"]
        if importlib.util.find_spec(TRACKERS[name].package) is None
    ]
    if "mlflow" in tracking["trackers"]:
        problems += mlflow_uri_problems(tracking["mlflow"]["tracking_uri"])
    return problems


def mlflow_uri_problems(uri: str) -> list[str]:
    scheme = urlparse(uri).scheme
    if scheme not in ("", "file", *MLFLOW_SERVER_SCHEMES):
        return [
            f"config tracking.mlflow.tracking_uri: a {scheme!r} URI is neither a local folder nor the http(s) URL of "
            "a tracking server (a database or a cloud store is reached through a tracking server)"
        ]
    return []
