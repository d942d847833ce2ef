"""The calibration's projection (results/calibration.json): each phase's burst, timed and projected to its steps, and
the run's time and cost, added up over the phases. calibrate writes it (write_calibration); the report's summary sets
it against the run it projected (read_calibration), as one typed view."""

from dataclasses import dataclass

from ..files.json_files import write_json
from ..files.json_views import as_json, built, read_view

CALIBRATION_FILE = "results/calibration.json"  # calibrate's output; the report reads it when it exists


@dataclass(frozen=True)
class PhaseProjection:
    """One phase's launch, its burst (`warmup_steps` then `measured_steps`, timed), the time per step, evaluation and
    checkpoint, its steps, evaluations and checkpoints, and their projected time, node-hours and cost (None without a
    price)."""

    phase: int
    block_size: int
    backend: str
    world_size: int
    global_batch_size: int
    warmup_steps: int
    measured_steps: int
    samples_per_second: float
    seconds_per_step: float
    warmup_seconds: float
    seconds_per_evaluation: float
    seconds_per_checkpoint: float
    max_steps: int
    evaluations: int
    checkpoints: int
    nodes: int
    startup_seconds: float
    projected_train_seconds: float
    projected_wall_seconds: float
    projected_wall_time: str
    price_per_node_hour: float | None
    projected_node_hours: float
    projected_cost: float | None


@dataclass(frozen=True)
class Calibration(PhaseProjection):
    """The run's projection: the last phase's launch and burst, the steps, throughput, time and cost over all the
    phases, and each phase's own projection."""

    phases: tuple[PhaseProjection, ...]

    @classmethod
    def from_json(cls, data: dict) -> "Calibration":
        return built(cls, data)


def write_calibration(path: str, calibration: Calibration) -> None:
    write_json(path, as_json(calibration))


def read_calibration(path: str) -> Calibration:
    """The calibration at `path`; one of another version or program is refused, naming the key at fault, and what
    makes it anew: no rerun does, as the report reads it without waiting for it."""
    return read_view(path, "calibration", Calibration, "`snakemake calibrate` makes it anew, or delete it")
