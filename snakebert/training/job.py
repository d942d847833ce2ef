"""What a training job is given, defined once for the two rules that train (pretrain and calibrate): both are
started by the same launcher with the same arguments, and calibrate times the job that pretrain runs."""

import dataclasses
from dataclasses import dataclass

from ..config_defaults import schema_defaults
from ..files.settings_files import read_settings
from ..files.tracking_settings import read_tracking_settings
from ..job_arguments import argument, arguments_of
from ..tracking.trackers import job_trackers, no_tracking
from .backends import BACKENDS, GAUDI_CONFIG


def evaluation_masking(evaluate: dict) -> dict:
    """The masking of every MLM evaluation, from the `evaluate` config: the same whatever training's phases."""
    return {key: evaluate[key] for key in ("mlm_probability", "max_predictions")}


@dataclass(frozen=True, kw_only=True)
class DeviceJob:
    """What every job that trains on a device is given (pretrain and calibrate's TrainingJob, finetune's FinetuneJob),
    as keywords."""

    backend: str = argument("the backend, resolved by the workflow", choices=list(BACKENDS))
    checkpoints: str = argument("the checkpoint folder, outside the rule's outputs")
    threads: int = argument("torch's CPU threads (0: torch's default)", int, default=0)
    gaudi_config: str = argument("the GaudiConfig JSON file", default=str(GAUDI_CONFIG))
    on_device: bool = True  # False runs the HPU path's classes on the CPU (the contract tests)
    # The trackers of `tracking` that the job reports to, from the two fields below: stored, not derived on each read,
    # as tracked() checks once, when the job is built, that each can report (an MLflow server's health check).
    trackers: tuple[str, ...] = ()
    tracking: dict = argument(
        "the `tracking` config, in the file the workflow writes (files/tracking_settings.py; default: no trackers)",
        read_tracking_settings,
        default_factory=no_tracking,
    )
    tracking_dir: str | None = argument(
        "the folder of the run's histories, outside the rule's outputs (default: none kept)", default=None
    )


@dataclass(frozen=True)
class TrainingJob(DeviceJob):
    manifest: str = argument("the data set's manifest.json")
    tokenizer: str = argument("the tokenizer's folder")
    model: dict = argument("the `model` config, in a settings file", read_settings)
    pretrain: dict = argument("the `pretrain` config, in a settings file", read_settings)
    world_size: int | None = argument("the ranks the workflow launches (none: the launcher's)", int, default=None)
    evaluate: dict = argument(
        "the `evaluate` config's masking (evaluation_masking): all of it that shapes the evaluations during "
        "training (default: the config's default), in a settings file",
        read_settings,
        default_factory=lambda: evaluation_masking(schema_defaults("evaluate")),
    )


def job_from(args) -> TrainingJob:
    """The job that a training script's parsed arguments (add_arguments) describe."""
    return tracked(TrainingJob(**arguments_of(TrainingJob, args)))


def tracked(job: DeviceJob) -> DeviceJob:
    """`job` with the trackers its `tracking` config and history folder give."""
    return dataclasses.replace(job, trackers=job_trackers(job.tracking, job.tracking_dir))
