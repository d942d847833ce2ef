"""A model's linear-probe result on one fold, seed by seed
(results/finetune/{task}/probe/{model}/{fold}seed-{seed}.json), as linear_probe.py writes it and the task's summary
reads it: a frozen dataclass whose attributes are the file's keys, in the file's order. This module alone spells the
file's path and its keys."""

from dataclasses import dataclass

from ..files.json_files import write_json
from ..files.json_views import as_json, built, left_out_when_none, read_view
from .run_file import RunOf

PROBE_FILE = "results/finetune/{task}/probe/{model}/{fold}seed-{seed}.json"  # `fold`: FOLD_DATA's
WHAT = "linear-probe result"


@dataclass(frozen=True, kw_only=True)
class ProbeResult(RunOf):
    """One seed's probe: what it probed (RunOf), its protocol, its scores on validation and on test (left out where the
    task reports validation), its predictions on the reported split, the regularisation strength validation chose, its
    no-answer threshold (left out but for a task whose questions may have no answer) and the machine it ran on
    (machine.py)."""

    protocol: str
    validation: dict[str, float | None]
    test: dict[str, float | None] | None = left_out_when_none()
    predictions: list
    strength: float
    no_answer_threshold: float | None = left_out_when_none()
    machine: dict

    @classmethod
    def from_json(cls, data: dict) -> "ProbeResult":
        return built(cls, data)


def write_probe(path: str, probe: ProbeResult) -> None:
    write_json(path, as_json(probe))


def read_probe(path: str) -> ProbeResult:
    """The result at `path`, refused, naming the field, where a part is missing or not of its kind."""
    return read_view(path, WHAT, ProbeResult)
