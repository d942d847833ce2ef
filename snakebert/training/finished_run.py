"""A finished run's model folder, kept in its checkpoint folder: a job of the same fingerprint that starts once the
run has reached its last step (a neutral setting changed, or `--forcerun pretrain`) saves that folder again instead of
training, so the model, its training metrics and log_history.json are the run's own: no segment of zero steps, no
throughput of a job that trained nothing."""

import shutil
from pathlib import Path

from ..files.atomic import atomic_path
from .training_metrics import TrainingMetrics, metrics_path, read_training_metrics

FINISHED = "finished"  # the run folder's copy of the model folder its last job saved


def keep_finished(model_folder: Path, run_folder: Path) -> None:
    """Copy the saved model folder into the run's checkpoint folder, whole or not at all."""
    with atomic_path(run_folder / FINISHED) as tmp:
        shutil.copytree(model_folder, tmp)


def kept_finished(run_folder: Path) -> bool:
    """Whether the run kept its model folder (one that finished before runs kept it did not)."""
    return metrics_path(run_folder / FINISHED).is_file()


def save_finished(run_folder: Path, out: str) -> TrainingMetrics:
    """The run's kept model folder copied into `out`; its training metrics."""
    with atomic_path(out) as tmp:
        shutil.copytree(run_folder / FINISHED, tmp)
    return read_training_metrics(out)


def finished_line(checkpoint: str, steps: int, run_folder: Path) -> str:
    """What the log says of a job that starts after its run has finished."""
    said = f"the run is complete: {checkpoint} holds its last step ({steps}); nothing is trained: "
    if kept_finished(run_folder):
        return said + f"the model folder the run saved, kept in {run_folder / FINISHED}, is saved again"
    return said + "its weights and log history are saved (the run kept no model folder, so its timings are unknown)"
