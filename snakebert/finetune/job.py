"""What one fine-tuning run is given: a prepared task, a model to start from (the pretrained one, the same
architecture from random initialisation, or a reference model), a seed, the recipe and the run's learning rate (one of
the recipe's grid, for a run of the search, or the one the search chose on validation, read from its chosen.json)."""

import json
from dataclasses import dataclass, field

from ..errors import DataError
from ..training.backends import GAUDI_CONFIG
from ..training.job import ARGUMENTS as TRAINING_ARGUMENTS
from ..training.job import tracking_fields
from ..training.trackers import no_tracking
from .chosen_file import read_chosen
from .kinds import JOB_KINDS


@dataclass(frozen=True)
class FinetuneJob:
    task_dir: str  # prepare_task's folder
    name: str  # the model's name in the results: pretrained, random or a `finetune.compare` name
    kind: str  # one of kinds.JOB_KINDS
    source: str  # a model folder or a Hub id (random_init: the folder whose architecture and tokenizer are used)
    seed: int
    recipe: dict  # `finetune.recipe` with the task's own `recipe` over it: its learning_rate may be a grid
    rate: float  # the run's learning rate
    searching: bool  # a run of the search (its rate one of the grid), not a seed past it at the chosen rate
    eval_batch_size: int
    backend: str  # a concrete backend, resolved by the workflow
    checkpoints: str  # outside the rule's outputs
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
    "--source": {"required": True, "help": "the model to start from: a folder or a Hub id"},
    "--seed": {"type": int, "required": True},
    "--recipe": {"required": True, "help": "the fine-tuning recipe, as JSON"},
    "--rate": {"type": float, "help": "a run of the search: its learning rate, one of the recipe's grid"},
    "--chosen": {"help": "a seed past the search: the model's chosen.json, the rate its search chose"},
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


def run_rate(args) -> tuple[float, bool]:
    """The run's learning rate, and whether it is a run of the search: --rate gives one, --chosen the search's."""
    if (args.rate is None) == (args.chosen is None):
        raise DataError("a fine-tuning run takes one of --rate (a run of the search) and --chosen (a seed past it)")
    return (args.rate, True) if args.chosen is None else (read_chosen(args.chosen).learning_rate, False)


def job_from(args) -> FinetuneJob:
    rate, searching = run_rate(args)
    return FinetuneJob(
        task_dir=args.task,
        name=args.name,
        kind=args.kind,
        source=args.source,
        seed=args.seed,
        recipe=json.loads(args.recipe),
        rate=rate,
        searching=searching,
        eval_batch_size=args.eval_batch_size,
        backend=args.backend,
        checkpoints=args.checkpoints,
        threads=args.threads,
        gaudi_config=args.gaudi_config,
        **tracking_fields(args),
    )
