"""A model's learning rate chosen on validation, `results/finetune/{task}/runs/{model}/chosen.json`: the rule
choose_rate writes it once from the model's search runs (rates.py), and the seeds past the search and the task's
summary read it, as one typed view."""

from dataclasses import dataclass

from ..files.json_files import write_json
from ..files.json_views import as_json, built, read_view

CHOSEN_FILE = "results/finetune/{task}/runs/{model}/chosen.json"


@dataclass(frozen=True)
class RateTried:
    """One rate of the grid: the median validation score of its runs on the main metric (None: no run scored), how
    many runs tried it and how many of those diverged."""

    learning_rate: float
    validation: float | None
    runs: int
    diverged: int


@dataclass(frozen=True)
class ChosenRate:
    """The model's rate, the metric that chose it, and every rate of the grid as the search found it."""

    model: str
    metric: str
    learning_rate: float
    search: tuple[RateTried, ...]

    @classmethod
    def from_json(cls, data: dict) -> "ChosenRate":
        return built(cls, data)


def write_chosen(path: str, chosen: ChosenRate) -> None:
    write_json(path, as_json(chosen))


def read_chosen(path: str) -> ChosenRate:
    """The choice at `path`; one of another version or program is refused, naming the key at fault."""
    return read_view(path, "learning-rate choice", ChosenRate)
