"""A model's learning rate chosen on validation, `results/finetune/{task}/runs/{model}/chosen.json`: the rule
choose_rate writes it once from the model's search runs (rates.py), and the seeds past the search and the task's
summary read it. A file of another shape is refused, naming the key at fault."""

from dataclasses import asdict, dataclass

from ..errors import DataError
from ..files import REBUILD
from ..files.json_files import read_fields, write_json

CHOSEN_FILE = "results/finetune/{task}/runs/{model}/chosen.json"
WHAT = "learning-rate choice"


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


def write_chosen(path: str, chosen: ChosenRate) -> None:
    write_json(path, asdict(chosen))


def read_chosen(path: str) -> ChosenRate:
    found = read_fields(path, {"model": str, "metric": str, "learning_rate": float, "search": list}, WHAT)
    try:
        search = tuple(RateTried(**tried) for tried in found["search"])
    except TypeError as error:
        raise DataError(f"{path}: the {WHAT}'s 'search' holds a rate of another shape ({error}); {REBUILD}") from None
    return ChosenRate(found["model"], found["metric"], found["learning_rate"], search)
