"""Live training curves: the trackers a training job reports to (the config's `tracking` section), one table, as
the backends are. A run's history lives outside the rules' outputs (under logs/tracking), so that Snakemake's
deletion of outputs before a rerun never erases it, and only the main process writes it. Nothing here imports a
tracker: the workflow's parse checks the table without loading one. What every tracker is given, and the helpers
they share, are tracked_run.py's."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config_defaults import schema_defaults
from ..errors import DataError
from .tracked_run import TrackedRun


def tensorboard_history(run: TrackedRun):
    from .tensorboard import SegmentHistory

    return SegmentHistory(run.folder, run.settings)


def wandb_history(run: TrackedRun):
    from .wandb import WandbHistory

    return WandbHistory(run)


def mlflow_history(run: TrackedRun):
    from .mlflow import MlflowHistory

    return MlflowHistory(run)


def no_start_problem(options: dict) -> str | None:
    return None


def wandb_start_problem(options: dict) -> str | None:
    from .wandb import online_problem

    return online_problem(options["wandb"]["mode"])


def mlflow_start_problem(options: dict) -> str | None:
    from .mlflow import server_problem

    return server_problem(options["mlflow"]["tracking_uri"])


@dataclass(frozen=True)
class Tracker:
    package: str  # what must be importable
    install: str  # what to run when it is not
    callback: Callable[[TrackedRun], object]  # the trainer callback that reports the run
    start_problem: Callable[[dict], str | None] = no_start_problem  # what stops a job from reporting, at its start


TRACKERS = {
    "tensorboard": Tracker("tensorboard", "pip install tensorboard", tensorboard_history),
    "wandb": Tracker("wandb", "pip install wandb", wandb_history, wandb_start_problem),
    "mlflow": Tracker("mlflow", "pip install mlflow", mlflow_history, mlflow_start_problem),
}


def no_tracking() -> dict:
    """The `tracking` section of a job started outside the workflow: the schema's, with no trackers."""
    return {**schema_defaults("tracking"), "trackers": []}


def job_trackers(tracking: dict, folder: str | None) -> tuple[str, ...]:
    """The trackers of the `tracking` section for a job that keeps its history in `folder` (None: none kept, as
    calibrate's bursts keep none). A tracker that cannot report from here (W&B online with no key or no network, an
    MLflow server that does not answer) is refused now, before the job reads its data, not at its first logging
    step."""
    if folder is None:
        return ()
    trackers = tuple(tracking["trackers"])
    for name in trackers:
        if name not in TRACKERS:
            raise DataError(f"config tracking.trackers: {name!r} is not a tracker ({', '.join(TRACKERS)})")
        problem = TRACKERS[name].start_problem(tracking)
        if problem:
            raise DataError(f"config tracking.trackers: {name!r} {problem}")
    return trackers


def tracking_callbacks(
    trackers: tuple[str, ...], folder: str | None, identity: str, settings: dict, tracking: dict
) -> list:
    """The callbacks of `trackers` for the run `identity`, writing under `folder` with the job's `settings` as
    hyperparameters and the `tracking` section's options (folder None: no history)."""
    if folder is None:
        return []
    run = TrackedRun(Path(folder), identity, settings, tracking)
    return [TRACKERS[name].callback(run) for name in trackers]
