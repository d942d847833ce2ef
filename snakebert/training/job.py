"""What a training job is given, defined once for the two rules that train (pretrain and calibrate): both are
started by the same launcher with the same arguments, and calibrate times the job that pretrain runs."""

import json
from dataclasses import dataclass, field

from ..config_defaults import schema_defaults
from ..files.tracking_settings import read_tracking_settings
from .backends import BACKENDS, GAUDI_CONFIG
from .trackers import job_trackers, no_tracking


def evaluation_masking(evaluate: dict) -> dict:
    """The masking of every MLM evaluation, from the `evaluate` config: the same whatever training's phases."""
    return {key: evaluate[key] for key in ("mlm_probability", "max_predictions")}


@dataclass(frozen=True)
class TrainingJob:
    manifest: str
    tokenizer: str
    model: dict  # the `model` config
    pretrain: dict  # the `pretrain` config
    backend: str  # a concrete backend, resolved by the workflow
    checkpoints: str  # outside the rule's outputs
    world_size: int | None = None  # the ranks the workflow launches (None: whatever the launcher started)
    threads: int = 0  # torch's CPU threads (0: its default)
    gaudi_config: str = str(GAUDI_CONFIG)
    on_device: bool = True  # False runs the HPU path's classes on the CPU (the contract tests)
    # the `evaluate` config's masking (evaluation_masking): all of it that shapes the evaluations during training
    evaluate: dict = field(default_factory=lambda: evaluation_masking(schema_defaults("evaluate")))
    trackers: tuple[str, ...] = ()  # the trackers of `tracking` that the job reports to
    tracking: dict = field(default_factory=no_tracking)  # the `tracking` config
    tracking_dir: str | None = None  # the folder of the run's histories (None: none kept, as calibrate's bursts)


# The command-line arguments of a training script: flag -> add_argument's keywords.
ARGUMENTS = {
    "--manifest": {"required": True},
    "--tokenizer": {"required": True},
    "--model": {"required": True, "help": "the `model` config, as JSON"},
    "--pretrain": {"required": True, "help": "the `pretrain` config, as JSON"},
    "--evaluate": {
        "default": json.dumps(evaluation_masking(schema_defaults("evaluate"))),
        "help": "the `evaluate` config's masking, as JSON: that of the evaluations during training (default: the "
        "config's default)",
    },
    "--backend": {"choices": list(BACKENDS), "required": True, "help": "resolved by the workflow"},
    "--checkpoints": {"required": True, "help": "checkpoint folder, outside the rule's outputs"},
    "--world-size": {"type": int, "required": True, "help": "the ranks the workflow launches"},
    "--threads": {"type": int, "default": 0, "help": "CPU threads for torch (0: torch's default)"},
    "--gaudi-config": {"default": str(GAUDI_CONFIG), "help": "the GaudiConfig JSON file"},
    "--tracking": {
        "help": "the `tracking` config, in the file the workflow writes (files/tracking_settings.py; default: no "
        "trackers)"
    },
    "--tracking-dir": {"help": "the folder of the run's histories, outside the rule's outputs (default: none kept)"},
    "--out": {"required": True},
}


def job_from(args) -> TrainingJob:
    """The job that a training script's parsed ARGUMENTS describe."""
    return TrainingJob(
        manifest=args.manifest,
        tokenizer=args.tokenizer,
        model=json.loads(args.model),
        pretrain=json.loads(args.pretrain),
        backend=args.backend,
        checkpoints=args.checkpoints,
        world_size=args.world_size,
        threads=args.threads,
        gaudi_config=args.gaudi_config,
        evaluate=json.loads(args.evaluate),
        **tracking_fields(args),
    )


def tracking_fields(args) -> dict:
    """A job's fields of tracking, from its parsed `--tracking` and `--tracking-dir` (TrainingJob's and
    FinetuneJob's)."""
    tracking = read_tracking_settings(args.tracking) if args.tracking else no_tracking()
    return {
        "trackers": job_trackers(tracking, args.tracking_dir),
        "tracking": tracking,
        "tracking_dir": args.tracking_dir,
    }
