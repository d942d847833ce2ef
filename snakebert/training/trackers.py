"""Live training curves: the trackers a training job reports to (the config's `tracking` section), one table, as
the backends are. A run's history lives outside the rules' outputs (under logs/tracking), so that Snakemake's
deletion of outputs before a rerun never erases it, and only the main process writes it. Nothing here imports a
tracker: the workflow's parse checks the table without loading one."""

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def tensorboard_history(folder: Path, settings: dict):
    from .tracking import SegmentHistory

    return SegmentHistory(folder, settings)


@dataclass(frozen=True)
class Tracker:
    package: str  # what must be importable
    install: str  # what to run when it is not
    callback: Callable[[Path, dict], object]  # the trainer callback that writes into a folder, given the settings


TRACKERS = {"tensorboard": Tracker("tensorboard", "pip install tensorboard", tensorboard_history)}
TRACKING_ENV = "SNAKEBERT_TRACKING"  # the `tracking` config as JSON, which the workflow sets for its jobs


def configured_trackers() -> tuple[str, ...]:
    """The trackers of the `tracking` config the workflow passed in the environment (none outside a workflow)."""
    return tuple(json.loads(os.environ.get(TRACKING_ENV, '{"trackers": []}'))["trackers"])


def tracking_callbacks(trackers: list[str], folder: str | None, settings: dict) -> list:
    """The callbacks of `trackers`, writing under `folder` with the job's `settings` as hyperparameters (folder None:
    no history, as calibrate's bursts keep none)."""
    if folder is None:
        return []
    return [TRACKERS[name].callback(Path(folder), settings) for name in trackers]
