"""A task's baselines on one fold (results/finetune/{task}/{fold}baselines.json), as baselines.py writes them and the
task's summary reads them: each baseline's frozen dataclass, whose attributes are its entry's keys, in the file's
order. This module alone spells the file's path and its keys."""

from dataclasses import dataclass

from ..files.json_files import write_json
from ..files.json_views import as_json, built, left_out_when_none, read_view

BASELINES_FILE = "results/finetune/{task}/{fold}baselines.json"  # `fold`: FOLD_DATA's
WHAT = "baselines file"


@dataclass(frozen=True, kw_only=True)
class BaselineResult:
    """One baseline: its scores on validation and on test (left out where the task reports validation), its
    predictions on the reported split, the regularisation strength validation chose (left out but for a baseline that
    fits one) and its fold (None without folds)."""

    validation: dict[str, float | None]
    test: dict[str, float | None] | None = left_out_when_none()
    predictions: list
    strength: float | None = left_out_when_none()
    fold: int | None


class _Baselines:
    """The file: {baseline name: its result}, in the problem's order (baselines.BASELINES)."""

    @staticmethod
    def from_json(data: dict) -> dict[str, BaselineResult]:
        return {name: built(BaselineResult, found) for name, found in data.items()}


def write_baselines(path: str, baselines: dict[str, BaselineResult]) -> None:
    write_json(path, as_json(baselines))


def read_baselines(path: str) -> dict[str, BaselineResult]:
    """The baselines at `path`, refused, naming the field, where a part is missing or not of its kind."""
    return read_view(path, WHAT, _Baselines)
