"""The pretrained model folder (results/model) and its training_metrics.json: the run's launch, totals and
throughput, each phase's record and the jobs (segments) the run took. pretrain writes it (write_training_metrics);
the fine-tuning plan, the report and the model card read it (read_training_metrics), as one typed view."""

from dataclasses import dataclass
from pathlib import Path

from ..files.json_files import write_json
from ..files.json_views import as_json, built, left_out_when_none, read_view

MODEL_FOLDER = "results/model"  # pretrain's output: the model, its tokenizer and its training metrics
FILE_NAME = "training_metrics.json"


@dataclass(frozen=True)
class PhaseRecord:
    """One phase: its steps, blocks, batch (None where this job did not train it), predictions per block and peak
    learning rate, and, where this job trained it, its time and throughput (left out of the file otherwise)."""

    phase: int
    block_size: int
    first_step: int
    last_step: int
    global_batch_size: int | None
    predictions_per_block: int
    peak_learning_rate: float
    trained_here: bool
    train_runtime: float | None = left_out_when_none()
    train_samples_per_second: float | None = left_out_when_none()
    train_tokens_per_second: float | None = left_out_when_none()


@dataclass(frozen=True)
class TrainingMetrics:
    """The run's launch, its totals over the phases the saving job trained (timings None where it trained none), the
    losses logged, each phase's record, the segments (checkpoints.Segment's records), the base it continued from and
    the model folder's copy of its history (None: none kept)."""

    backend: str
    world_size: int
    global_batch_size: int
    steps: int
    resumed_from: str | None
    train_runtime: float | None
    train_samples_per_second: float | None
    train_tokens_per_second: float | None
    initial_loss: float | None
    final_loss: float | None
    final_eval_loss: float | None
    phases: tuple[PhaseRecord, ...]
    segments: tuple[dict[str, int], ...]
    init_from: str | None
    history: str | None

    @classmethod
    def from_json(cls, data: dict) -> "TrainingMetrics":
        phases = tuple(built(PhaseRecord, phase) for phase in data["phases"])
        return built(cls, data, phases=phases, segments=tuple(dict(segment) for segment in data["segments"]))


def metrics_path(model_folder: str | Path) -> Path:
    return Path(model_folder) / FILE_NAME


def write_training_metrics(model_folder: str | Path, metrics: TrainingMetrics) -> None:
    write_json(metrics_path(model_folder), as_json(metrics))


def read_training_metrics(model_folder: str | Path) -> TrainingMetrics:
    """The training metrics of the model in `model_folder`; one of another version or program is refused, naming
    the key at fault."""
    return read_view(str(metrics_path(model_folder)), "training metrics file", TrainingMetrics)
