import json
import os
from pathlib import Path

from snakemake.exceptions import WorkflowError

ROOT = Path(workflow.basedir)
SCRIPTS = ROOT / "scripts"
GAUDI_CONFIG = os.path.relpath(ROOT / "config" / "gaudi_config.json")

from snakebert.code_digest import code_digest
from snakebert.config_checks import config_problems
from snakebert.data import manifest as data_manifest
from snakebert.data.shards import declared_input, shard_name
from snakebert.data.sources import plan_source
from snakebert.errors import DataError
from snakebert.finetune import plan as finetune_plan
from snakebert.hub import UPLOADS
from snakebert.report import REPORT_FILES
from snakebert.training.backends import BACKENDS, device_count, resolve_backend
from snakebert.training.job import evaluation_masking
from snakebert.training.model_config import backend_problems
from snakebert.training.phases import packing_sizes

INPUT_ALIASES = Path(".snakemake/snakebert/inputs")  # symlinks to input files whose names hold braces
DEVICE_RESOURCES = {backend.resource: 0 for backend in BACKENDS.values() if backend.resource}


wildcard_constraints:
    packing=r"blocks(-[0-9]+)?",
    source=r"[A-Za-z0-9][A-Za-z0-9_-]*",
    shard=r"shard-\d{5}",


def plan_shards():
    """{source name: {shard name: input files}}, in corpus order, from config and the files found now."""
    try:
        return {
            source["name"]: {shard_name(index): files for index, files in enumerate(plan_source(source))}
            for source in config["sources"]
        }
    except DataError as error:
        raise WorkflowError(str(error))


for problem in config_problems(config):  # the checks beyond the schema, before any job
    raise WorkflowError(problem)
SOURCES = {source["name"]: source for source in config["sources"]}
SHARDS = plan_shards()
TASKS = {task["name"]: task for task in config["finetune"]["tasks"]}
FINETUNE_MODELS = finetune_plan.models(config["finetune"])


def corpus_shards(pattern):
    """`pattern` filled in for every shard of the corpus, in corpus order."""
    return [pattern.format(source=source, shard=shard) for source, shards in SHARDS.items() for shard in shards]


def script(name):
    """The path of scripts/`name`, relative to the working directory (a params value that survives a move)."""
    return os.path.relpath(SCRIPTS / name)


def code(name):
    """A params value that changes with scripts/`name` or a project module it imports: edited code reruns."""
    return code_digest(SCRIPTS / name, ROOT)


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


def source_json(wildcards):
    return json.dumps(SOURCES[wildcards.source], sort_keys=True)


def shard_index(wildcards):
    return int(wildcards.shard.removeprefix("shard-"))


def config_json(section):
    """A params function giving `config[section]` as JSON (a function, so its braces are not wildcards)."""

    def as_json(wildcards):
        return json.dumps(config[section], sort_keys=True)

    return as_json


def evaluation_json(wildcards):
    """The `evaluate` settings of the MLM evaluation: all but the probes, so editing a probe does not rerun it."""
    return json.dumps({key: value for key, value in config["evaluate"].items() if key != "probes"}, sort_keys=True)


def probes_json(wildcards):
    return json.dumps(config["evaluate"]["probes"], sort_keys=True)


def probe_results():
    """results/eval/probes.json when `evaluate.probes` lists prompts; none (and no probes job) when it is empty."""
    return ["results/eval/probes.json"] if config["evaluate"]["probes"] else []


def masking_json(wildcards):
    """The masking of every MLM evaluation (`evaluate`), whatever training's phases and mask rate."""
    return json.dumps(evaluation_masking(config["evaluate"]))


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


def rule_devices(resources):
    return {resource: getattr(resources, resource) for resource in DEVICE_RESOURCES}


def training_backend(wildcards, resources):
    """`pretrain.backend`, with `auto` resolved once, here, from the devices the rule is given (BACKENDS)."""
    return launch_plan(resources)[0]


def rule_nodes(resources):
    """The SLURM nodes the rule asks for (the SLURM profiles' `nodes`), None for a run on this machine."""
    nodes = getattr(resources, "nodes", None)
    if nodes is None:
        return None
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise WorkflowError(f"resource nodes={nodes!r}: a whole number of nodes, at least 1, is needed")
    gpu_job = getattr(resources, "gpu", 0) > 0
    if nodes > 1 and not gpu_job and getattr(resources, "tasks", 1) != nodes:
        raise WorkflowError(
            f"resources nodes={nodes} and tasks={getattr(resources, 'tasks', 1)}: SLURM would shrink the job to "
            "as many nodes as tasks, so tasks must equal nodes (the SLURM profiles set both from SNAKEBERT_NODES)"
        )
    return nodes


def launch_plan(resources):
    """(backend, ranks over all nodes, nodes or None) of the rule's training launch: one rank per device of the
    backend's resource, which counts the job's devices over all its nodes (the cpu backend: one rank per node)."""
    devices, nodes = rule_devices(resources), rule_nodes(resources)
    backend = resolve_backend(config["pretrain"]["backend"], devices)
    for problem in backend_problems(config["model"], backend):
        raise WorkflowError(problem)
    ranks = device_count(backend, devices, nodes)
    if ranks % (nodes or 1):
        raise WorkflowError(
            f"resources {BACKENDS[backend].resource}={ranks} and nodes={nodes}: the devices must split evenly "
            "between the nodes"
        )
    return backend, ranks, nodes


def step_nodes(resources, nodes):
    """The nodes on which the launch starts a SLURM step of its own: those of a job whose command the SLURM plugin
    runs outside any step (its `mpi` mode, which the SLURM profiles use for several nodes). None for a launch in
    place: on this machine, or on the one node of a job that the plugin runs in a step of its own, which a SIGTERM
    to the job's steps then reaches as it reaches a local run (a nested srun would answer it by killing the launch's
    step before any save; docs/long-runs.md)."""
    if nodes and (nodes > 1 or getattr(resources, "mpi", None)):
        return nodes
    return None


def launch_command(wildcards, resources):
    """How the backend's launcher starts the training script on the rule's nodes (one rank per device)."""
    backend, ranks, nodes = launch_plan(resources)
    return BACKENDS[backend].launch(ranks // (nodes or 1), step_nodes(resources, nodes), script)


def planned_world_size(wildcards, resources):
    """The ranks the launch starts, which the training script checks it got."""
    return launch_plan(resources)[1]


def planned_nodes(wildcards, resources):
    return launch_plan(resources)[2] or 1


def training_inputs():
    """What pretrain and calibrate read: the data set, the tokenizer and the Gaudi config."""
    return {
        "manifest": "results/dataset/manifest.json",
        "tokenizer": "results/tokenizer",
        "blocks": corpus_shards("results/blocks/{source}/{shard}.arrow"),
        "phase_blocks": phase_packings("arrow"),
        "gaudi_config": GAUDI_CONFIG,
    }


def training_params(name, checkpoints):
    """The params of pretrain and calibrate, which train with scripts/`name`; snakebert/training/job.py lists the
    arguments they become."""
    return {
        "launch": launch_command,
        "backend": training_backend,
        "world_size": planned_world_size,
        "script": script(name),
        "code": code(name),
        "model": config_json("model"),
        "settings": config_json("pretrain"),
        "evaluation": masking_json,
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
    """Each task's results (results/finetune/{task}/metrics.json), in config order."""
    return [f"results/finetune/{task}/metrics.json" for task in TASKS]


def task_files(wildcards):
    return finetune_plan.task_files(TASKS[wildcards.task])


def task_json(wildcards):
    return json.dumps(finetune_plan.task_data(TASKS[wildcards.task]), sort_keys=True)


def recipe_json(wildcards):
    return json.dumps(finetune_plan.task_recipe(config["finetune"], TASKS[wildcards.task]), sort_keys=True)


def finetune_model_kind(wildcards):
    return FINETUNE_MODELS[wildcards.model][0]


def finetune_model_source(wildcards):
    return FINETUNE_MODELS[wildcards.model][1]


def finetune_model_inputs(wildcards):
    return finetune_plan.model_inputs(FINETUNE_MODELS[wildcards.model][1])


def finetune_backend(wildcards, resources):
    """`finetune.backend`, with `auto` resolved from the devices the job is given (one device per job)."""
    backend = resolve_backend(config["finetune"]["backend"], rule_devices(resources))
    for problem in backend_problems(config["model"], backend):
        raise WorkflowError(problem)
    return backend


def finetune_runs(wildcards):
    """Every fine-tuning result of the task: each model, each seed (1..finetune.seeds)."""
    return [
        f"results/finetune/{wildcards.task}/runs/{model}/seed-{seed}.json"
        for model in FINETUNE_MODELS
        for seed in range(1, config["finetune"]["seeds"] + 1)
    ]


def final_targets():
    reports = [path for name, path in REPORT_FILES.items() if name != "downstream" or TASKS]
    targets = ["results/eval/metrics.json", *probe_results(), *finetune_metrics(), *reports]
    targets += ["results/cards/model/README.md", "results/cards/dataset/README.md"]
    if config["hub"]["push"]:
        targets.append("results/hub/pushed.json")
    return targets
