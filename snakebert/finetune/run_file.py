"""A fine-tuning run's result (results/finetune/{task}/runs/{model}/{rate}/{fold}seed-{seed}.json), as train.py writes
it and the rate's choice (rates.py) and the task's summary read it: a frozen dataclass whose attributes are the file's
keys, in the file's order. This module alone spells the file's path and its keys."""

from dataclasses import dataclass

from ..files.json_files import write_json
from ..files.json_views import as_json, built, left_out_when_none, read_view

# `rate`: the run folder of a rate of the grid (lr-0.003) or of the chosen rate; `fold`: a fold's path segment, or
# nothing without folds (FOLD_DATA's)
RUN_FILE = "results/finetune/{task}/runs/{model}/{rate}/{fold}seed-{seed}.json"
WHAT = "fine-tuning result"


@dataclass(frozen=True, kw_only=True)
class RunOf:
    """What a fine-tuning run's and a linear probe's result begin with: the task, the model's name, kind and folder or
    Hub id, the seed and the fold (None without folds)."""

    task: str
    model: str
    kind: str
    source: str
    seed: int
    fold: int | None


@dataclass(frozen=True, kw_only=True)
class RunResult(RunOf):
    """One run: what it ran (RunOf), the recipe it ran (at one rate), whether it was a run of the rate search, its best
    epoch, its scores on validation and on test (left out where the task reports validation), the classes it predicted
    on each (None: no classes), its predictions on the reported split, its no-answer threshold (left out but for a task
    whose questions may have no answer), why it diverged (None: it did not; then best epoch, scores, classes and
    predictions are None) and the machine it ran on (machine.py)."""

    recipe: dict
    search: bool
    best_epoch: float | None
    validation: dict[str, float | None]
    test: dict[str, float | None] | None = left_out_when_none()
    classes_predicted: dict[str, int | None]
    predictions: list | None
    no_answer_threshold: float | None = left_out_when_none()
    diverged: str | None
    machine: dict

    @classmethod
    def from_json(cls, data: dict) -> "RunResult":
        return built(cls, data)

    @property
    def learning_rate(self) -> float:
        return self.recipe["learning_rate"]


def write_run(path: str, run: RunResult) -> None:
    write_json(path, as_json(run))


def read_run(path: str) -> RunResult:
    """The result at `path`, refused, naming the field, where a part is missing or not of its kind (an older run's, or
    another file's)."""
    return read_view(path, WHAT, RunResult)
