import json
import os
from pathlib import Path

from snakemake.exceptions import WorkflowError

ROOT = Path(workflow.basedir)
SCRIPTS = ROOT / "scripts"
GAUDI_CONFIG = os.path.relpath(ROOT / "config" / "gaudi_config.json")

from snakebert.code_digest import CodeDigests
from snakebert.data import manifest as data_manifest
from snakebert.data.manifest_view import MANIFEST_FILE
from snakebert.data.signature_file import SIGNATURE_FILE
from snakebert.data.shards import declared_input
from snakebert.data.sources import plan_corpus
from snakebert.errors import DataError
from snakebert.files.settings_files import settings_file
from snakebert.files.tracking_settings import TRACKING_FILE
from snakebert.finetune import plan as finetune_plan
from snakebert.finetune.baselines_file import BASELINES_FILE
from snakebert.finetune.chosen_file import CHOSEN_FILE
from snakebert.finetune.metrics_file import METRICS_FILE
from snakebert.finetune.run_file import RUN_FILE
from snakebert.finetune.task_file import FOLD_DATA, TASK_DATA, TASK_FILE
from snakebert.hub import UPLOADS
from snakebert.report import REPORT_FILES
from snakebert.training.base_model import INIT_FROM
from snakebert.training.calibration_file import CALIBRATION_FILE
from snakebert.training.eval_metrics import EVAL_METRICS
from snakebert.training.fill_mask_results import FILL_MASK_RESULTS
from snakebert.training.job import evaluation_masking
from snakebert.launch.plan import DEVICE_RESOURCES, job_backend, launch_plan
from snakebert.training.phases import packing_sizes
from snakebert.training.training_metrics import MODEL_FOLDER

INPUT_ALIASES = Path(".snakemake/snakebert/inputs")  # symlinks to input files whose names hold braces
SETTINGS_FILES = Path(".snakemake/snakebert/settings")  # settings too large for a command line
CODE_DIGESTS = CodeDigests(Path(".snakemake/snakebert/code-digests.json"), ROOT)  # kept across parses


wildcard_constraints:
    packing=r"blocks(-[0-9]+)?",
    source=r"[A-Za-z0-9][A-Za-z0-9_-]*",
    shard=r"shard-\d{5}",


def refused_as_workflow_error(function, *args):
    """`function(*args)`, with a DataError raised as the WorkflowError that Snakemake reports."""
    try:
        return function(*args)
    except DataError as error:
        raise WorkflowError(str(error)) from None


FILTERS = ("languages", "language_threshold", "quality")  # the clean settings of filter_shard
FILTERING = bool(config["clean"]["languages"]) or any(rule["enabled"] for rule in config["clean"]["quality"].values())
SOURCES = {source["name"]: source for source in config["sources"]}
SHARDS = refused_as_workflow_error(plan_corpus, config["sources"])  # {source: {shard: input files}}, in corpus order
TASKS = {task["name"]: task for task in config["finetune"]["tasks"]}
FINETUNE_MODELS = finetune_plan.models(config["finetune"], config["model"][INIT_FROM])


def corpus_shards(pattern):
    """`pattern` filled in for every shard of the corpus, in corpus order."""
    return [pattern.format(source=source, shard=shard) for source, shards in SHARDS.items() for shard in shards]


def text_file(source, shard, suffix):
    """The text shard (`.arrow`) or its stats (`.json`) that the later jobs read: filter_shard's where a filter is on
    and the source says `filter: true`, else ingest's (a source that opts out gets no filter job)."""
    stage = "filtered" if FILTERING and SOURCES[source]["filter"] else "raw"
    return f"results/{stage}/{source}/{shard}{suffix}"


def text_shard(wildcards):
    """The text shard a shard's jobs read (`text_file`)."""
    return text_file(wildcards.source, wildcards.shard, ".arrow")


def corpus_text_files(suffix):
    """Every shard's `text_file`, in corpus order."""
    return [text_file(source, shard, suffix) for source, shards in SHARDS.items() for shard in shards]


def near_dedup_signatures(wildcards):
    """Every shard's signatures, in corpus order, with `clean.near_dedup.enabled`; none (and no signature jobs)
    without."""
    return corpus_shards(SIGNATURE_FILE) if config["clean"]["near_dedup"]["enabled"] else []


def script(name):
    """The path of scripts/`name`, relative to the working directory (a params value that survives a move)."""
    return os.path.relpath(SCRIPTS / name)


def code(name):
    """A params value that changes with scripts/`name` or a project module it imports: edited code reruns."""
    return CODE_DIGESTS.digest(SCRIPTS / name)


def model_base_files():
    """The files of a `model.init_from` folder, inputs of the kept tokenizer and of pretraining (an edit reruns them);
    none for a Hub id or from scratch."""
    base = config["model"][INIT_FROM]
    if not base or not Path(base).is_dir():
        return []
    return sorted(declared_input(str(path), INPUT_ALIASES) for path in Path(base).iterdir() if path.is_file())


def init_from(wildcards):
    return config["model"][INIT_FROM]


ADD_TOKENS = config["tokenizer"]["add_tokens"]


def added_words(wildcards):
    return str(ADD_TOKENS)


# keep_tokenizer's arguments for `tokenizer.add_tokens` (arguments_file): the count and the corpus it reads the words
# from; none without it.
ADDED_WORDS_CORPUS = {"--add-tokens": added_words, "--duplicates": "duplicates", "--raw": "raw"} if ADD_TOKENS else {}


def tokenizer_base_files():
    """The files of a `tokenizer.base` folder, inputs of the tokenizer (an edit retrains it); none for a Hub id."""
    base = config["tokenizer"].get("base")
    if not base or not Path(base).is_dir():
        return []
    return sorted(declared_input(str(path), INPUT_ALIASES) for path in Path(base).iterdir() if path.is_file())


def shard_files(wildcards):
    """The shard's input files, as the job reads them (a params function: its values are not formatted)."""
    return SHARDS[wildcards.source][wildcards.shard]


def shard_inputs(wildcards):
    """The shard's input files as Snakemake tracks them (a name with braces through a symlink)."""
    return [declared_input(path, INPUT_ALIASES) for path in shard_files(wildcards)]


def source_settings(wildcards):
    """The source's config entry in a settings file (settings_files.py), all but `filter`, which ingest does not
    read."""
    entry = {key: value for key, value in SOURCES[wildcards.source].items() if key != "filter"}
    return settings_file(entry, SETTINGS_FILES)


def shard_index(wildcards):
    return int(wildcards.shard.removeprefix("shard-"))


def section_settings(section):
    """A params function giving `config[section]` in a settings file named by its content (settings_files.py): a
    short path on the command line in place of the section's JSON, and another path when the section changes."""

    def path(wildcards):
        return settings_file(config[section], SETTINGS_FILES)

    return path


def ingest_clean_settings(wildcards):
    """The `clean` settings that shape ingest's text shard, in a settings file: all but the filters' and
    deduplication's, which later jobs apply, so changing those reruns no ingest."""
    later = ("dedup", "near_dedup", *FILTERS)
    return settings_file({key: value for key, value in config["clean"].items() if key not in later}, SETTINGS_FILES)


def filter_settings(wildcards):
    """The language and quality filters' settings, in a settings file: changing them reruns the filters, not ingest."""
    return settings_file({key: config["clean"][key] for key in FILTERS}, SETTINGS_FILES)


def near_dedup_settings(wildcards):
    """`clean.near_dedup`'s signature settings in a settings file (turning it on or off changes no signature)."""
    kept = {key: value for key, value in config["clean"]["near_dedup"].items() if key != "enabled"}
    return settings_file(kept, SETTINGS_FILES)


def evaluation_settings(wildcards):
    """The `evaluate` settings of the MLM evaluation, in a settings file: all but the probes, so editing a probe does
    not rerun it."""
    return settings_file({key: value for key, value in config["evaluate"].items() if key != "probes"}, SETTINGS_FILES)


def fill_mask_prompts(wildcards):
    """`evaluate.probes` in a file named by its content (settings_files.py): any number of prompts, no long argv."""
    return settings_file(config["evaluate"]["probes"], SETTINGS_FILES)


def arguments_file(arguments):
    """A params function: a script's arguments in a file named by their content (settings_files.py), which the script
    reads in place of `--arguments-file {params.NAME}`: no command grows with a list (every shard, run or task), as
    the kernel caps a command, one argument of `bash -c`, at 128 KiB. `arguments` is {flag: value}, in order (the flag
    `--` for positionals, last): a string names an input of the job, whose files follow the flag; a function of the
    wildcards gives one value, or a list of them."""

    def path(wildcards, input):
        listed = []
        for flag, value in arguments.items():
            found = getattr(input, value) if isinstance(value, str) else value(wildcards)
            listed += [flag, *([found] if isinstance(found, str) else found)]
        return settings_file(listed, SETTINGS_FILES)

    return path


def fill_mask_targets():
    """The fill-mask probes' results when `evaluate.probes` lists prompts; none (and no probes job) when it is empty."""
    return [FILL_MASK_RESULTS] if config["evaluate"]["probes"] else []


def evaluation_masking_settings(wildcards):
    """The masking of every MLM evaluation (`evaluate`), whatever training's phases and mask rate, in a settings
    file."""
    return settings_file(evaluation_masking(config["evaluate"]), SETTINGS_FILES)


def data_config_digest(wildcards):
    return data_manifest.data_config_digest(config)


PHASE_SIZES = packing_sizes(config["pretrain"], config["data"]["block_size"])


def packing_block_size(wildcards):
    """The block size of a packing folder: results/blocks is data.block_size, results/blocks-N is N (a phase's)."""
    name = wildcards.packing
    return int(name.removeprefix("blocks-")) if name != "blocks" else config["data"]["block_size"]


def phase_packings(suffix):
    """The block files (`arrow`) or their stats (`json`) of every phase packing, size by size, in corpus order."""
    return [
        path for size in PHASE_SIZES for path in corpus_shards(f"results/blocks-{size}/{{source}}/{{shard}}.{suffix}")
    ]


def phase_block_sizes(wildcards):
    """The block sizes of the phase packings, as build_manifest's arguments."""
    return " ".join(map(str, PHASE_SIZES))


def training_plan(wildcards, resources):
    """The job's launch (snakebert/launch/plan.py), one value whose attributes the shell command reads."""
    return refused_as_workflow_error(launch_plan, resources, config["pretrain"]["backend"], config["model"], script)


def training_command(*options):
    """The shell command of pretrain and calibrate (training_params): the launch, the training script and its
    arguments, then the rule's own `options`, the log last."""
    return " ".join(
        [
            "{params.plan.launch} {params.script} --backend {params.plan.backend} --world-size {params.plan.ranks}"
            " --manifest {input.manifest} --tokenizer {input.tokenizer} --model {params.model}"
            " --pretrain {params.pretrain} --evaluate {params.evaluate} --checkpoints {params.checkpoints}"
            " --gaudi-config {input.gaudi_config:q} --tracking {input.tracking} --threads {threads} --out {output}",
            *options,
            "> {log} 2>&1",
        ]
    )


def training_inputs():
    """What pretrain and calibrate read: the data set, the tokenizer, the Gaudi config, a `model.init_from` folder and
    the `tracking` section (ancient: a changed one reruns nothing)."""
    return {
        "manifest": MANIFEST_FILE,
        "tokenizer": "results/tokenizer",
        "blocks": corpus_shards("results/blocks/{source}/{shard}.arrow"),
        "phase_blocks": phase_packings("arrow"),
        "gaudi_config": GAUDI_CONFIG,
        "base": model_base_files(),
        "tracking": ancient(TRACKING_FILE),
    }


def training_params(name, checkpoints):
    """The params of pretrain and calibrate, which train with scripts/`name`; snakebert/training/job.py lists the
    arguments they become."""
    return {
        "plan": training_plan,
        "script": script(name),
        "code": code(name),
        "model": section_settings("model"),
        "pretrain": section_settings("pretrain"),
        "evaluate": evaluation_masking_settings,
        "checkpoints": checkpoints,
    }


def hub_uploads(wildcards):
    """What the Hub upload sends (UPLOADS): the outputs and the card of each part that has a repository in `hub`."""
    return {
        what: [path for output in upload.outputs for path in (corpus_shards(output) if "{" in output else [output])]
        + ([upload.card] if upload.card else [])
        for what, upload in UPLOADS.items()
        if config["hub"][upload.setting]
    }


def hub_uploads_json(wildcards):
    return json.dumps(hub_uploads(wildcards))


def finetune_metrics():
    """Each task's results (METRICS_FILE), in config order."""
    return [METRICS_FILE.format(task=task) for task in TASKS]


def task_files(wildcards):
    """The task's files, a name with braces through its alias (declared_input); the job reads the real paths."""
    return [declared_input(path, INPUT_ALIASES) for path in finetune_plan.task_files(TASKS[wildcards.task])]


def task_settings(wildcards):
    """The task's config entry, as prepare_task reads it, in a settings file."""
    return settings_file(finetune_plan.task_data(TASKS[wildcards.task]), SETTINGS_FILES)


def task_recipe(wildcards):
    return finetune_plan.task_recipe(config["finetune"], TASKS[wildcards.task])


def run_recipe_settings(wildcards):
    """The run's recipe (`finetune.recipe`, the task's own over it, at the run's rate) in a settings file."""
    return settings_file(finetune_plan.run_recipe(task_recipe(wildcards), wildcards.rate), SETTINGS_FILES)


def learning_rates_json(wildcards):
    return json.dumps(finetune_plan.learning_rates(task_recipe(wildcards)))


def finetune_model_kind(wildcards):
    return FINETUNE_MODELS[wildcards.model][0]


def finetune_model_source(wildcards):
    return FINETUNE_MODELS[wildcards.model][1]


def finetune_model_inputs(wildcards):
    return finetune_plan.model_inputs(FINETUNE_MODELS[wildcards.model][1])


def finetune_backend(wildcards, resources):
    """`finetune.backend`, with `auto` resolved from the devices the job is given (one device per job)."""
    return refused_as_workflow_error(job_backend, config["finetune"]["backend"], resources, config["model"])


def finetune_search_runs(wildcards):
    """A model's runs at every rate of the grid, with the search's seeds, on every fold: what choose_rate reads."""
    recipe = task_recipe(wildcards)
    return finetune_plan.search_runs(TASKS[wildcards.task], config["finetune"], recipe, wildcards.model)


def finetune_chosen_rate(wildcards):
    """A chosen run's input: its model's learning-rate choice (none for a run of the search)."""
    return [CHOSEN_FILE.format(**wildcards)] if wildcards.rate == finetune_plan.CHOSEN else []


def finetune_rate_argument(wildcards, input):
    """The run's rate: one of the grid, as its folder names it, or the choice of its model's search (its file)."""
    if wildcards.rate == finetune_plan.CHOSEN:
        return f"--chosen {input.chosen}"
    return f"--rate {finetune_plan.folder_rate(wildcards.rate)!r}"


def finetune_chosen_rates(wildcards):
    """Every fine-tuned model's learning-rate choice, read by the task's summary."""
    if "finetune" not in config["finetune"]["protocols"]:
        return []
    return [CHOSEN_FILE.format(task=wildcards.task, model=model) for model in FINETUNE_MODELS]


def finetune_runs(wildcards):
    """Every fine-tuning result of the task: each model's search over the grid, then its chosen rate's other seeds."""
    if "finetune" not in config["finetune"]["protocols"]:
        return []
    recipe = task_recipe(wildcards)
    return [
        path
        for model in FINETUNE_MODELS
        for path in finetune_plan.model_runs(TASKS[wildcards.task], config["finetune"], recipe, model)
    ]


def linear_probe_runs(wildcards):
    """Every linear-probe result of the task: each model, each fold, each seed."""
    if "linear_probe" not in config["finetune"]["protocols"]:
        return []
    return [
        path
        for model in FINETUNE_MODELS
        for fold in finetune_plan.fold_segments(TASKS[wildcards.task])
        for path in finetune_plan.linear_probe_runs(wildcards.task, config["finetune"], model, fold)
    ]


def linear_probe_outputs(wildcards):
    """A linear-probe job's results, seed by seed, as the rule declares them."""
    return finetune_plan.linear_probe_runs(wildcards.task, config["finetune"], wildcards.model, wildcards.fold)


def baseline_results(wildcards):
    return finetune_plan.baseline_results(TASKS[wildcards.task])


def linear_probe_max_length(wildcards):
    return task_recipe(wildcards)["max_length"]


def final_targets():
    reports = [path for name, path in REPORT_FILES.items() if name != "downstream" or TASKS]
    targets = [EVAL_METRICS, *fill_mask_targets(), *finetune_metrics(), *reports]
    targets += ["results/cards/model/README.md", "results/cards/dataset/README.md"]
    if config["hub"]["push"]:
        targets.append("results/hub/pushed.json")
    return targets
