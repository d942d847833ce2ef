"""What one fine-tuning run is given: a prepared task, a model to start from (the pretrained one, the same
architecture from random initialisation, or a reference model), a seed, the recipe and the run's learning rate (one of
the recipe's grid, or the one the search's runs choose on validation)."""

import json
from dataclasses import dataclass, field

from ..training.backends import GAUDI_CONFIG
from ..training.job import ARGUMENTS as TRAINING_ARGUMENTS
from ..training.job import tracking_fields
from ..training.trackers import no_tracking
from .kinds import JOB_KINDS


@dataclass(frozen=True)
class FinetuneJob:
    task_dir: str  # prepare_task's folder
    name: str  # the model's name in the results: pretrained, random or a `finetune.compare` name
    kind: str  # one of kinds.JOB_KINDS
    model: str  # a model folder or a Hub id (random_init: the folder whose architecture and tokenizer are used)
    seed: int
    recipe: dict  # `finetune.recipe` with the task's own `recipe` over it: its learning_rate may be a grid
    rate: str  # the run's folder: lr-RATE (a rate of the grid) or chosen (the rate the search chooses)
    eval_batch_size: int
    backend: str  # a concrete backend, resolved by the workflow
    checkpoints: str  # outside the rule's outputs
    search: tuple[str, ...] = ()  # a chosen run's model's search runs, every rate of the grid
    threads: int = 0
    gaudi_config: str = str(GAUDI_CONFIG)
    on_device: bool = True  # False runs the HPU path's classes on the CPU (the contract tests)
    trackers: tuple[str, ...] = ()  # the trackers of `tracking` that the run reports to
    tracking: dict = field(default_factory=no_tracking)  # the `tracking` config
    tracking_dir: str | None = None  # the run's history folder (None: none kept)


ARGUMENTS = {
    "--task": {"required": True, "help": "prepare_task's folder"},
    "--name": {"required": True},
    "--kind": {"choices": JOB_KINDS, "required": True},
    "--model": {"required": True, "help": "a model folder or a Hub id"},
    "--seed": {"type": int, "required": True},
    "--recipe": {"required": True, "help": "the fine-tuning recipe, as JSON"},
    "--rate": {"required": True, "help": "the run's folder: lr-RATE, a rate of the recipe's grid, or chosen"},
    "--search": {"nargs": "*", "default": [], "help": "for a chosen run: the model's runs at every rate of the grid"},
    "--eval-batch-size": {"type": int, "required": True},
    **{
        flag: TRAINING_ARGUMENTS[flag]
        for flag in (
            "--backend",
            "--checkpoints",
            "--threads",
            "--gaudi-config",
            "--tracking",
            "--tracking-dir",
            "--out",
        )
    },
}


def job_from(args) -> FinetuneJob:
    return FinetuneJob(
        task_dir=args.task,
        name=args.name,
        kind=args.kind,
        model=args.model,
        seed=args.seed,
        recipe=json.loads(args.recipe),
        rate=args.rate,
        search=tuple(args.search),
        eval_batch_size=args.eval_batch_size,
        backend=args.backend,
        checkpoints=args.checkpoints,
        threads=args.threads,
        gaudi_config=args.gaudi_config,
        **tracking_fields(args),
    )
