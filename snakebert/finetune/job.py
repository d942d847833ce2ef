"""What one fine-tuning run is given: a prepared task, a model to start from (the pretrained one, the same
architecture from random initialisation, or a reference model), a seed, the recipe and the run's learning rate (one of
the recipe's grid, for a run of the search, or the one the search chose on validation, read from its chosen.json)."""

from dataclasses import dataclass

from ..errors import DataError
from ..files.settings_files import read_settings
from ..job_arguments import argument, arguments_of
from ..training.job import DeviceJob, tracked
from .chosen_file import read_chosen
from .kinds import JOB_KINDS


@dataclass(frozen=True)
class FinetuneJob(DeviceJob):
    task_dir: str = argument("prepare_task's folder (a fold's, with folds)")
    name: str = argument("the model's name in the results: pretrained, random or a `finetune.compare` name")
    kind: str = argument("what the model is (kinds.py)", choices=JOB_KINDS)
    source: str = argument("the model to start from: a folder or a Hub id (random_init: the architecture's)")
    seed: int = argument("the run's seed", int)
    recipe: dict = argument("`finetune.recipe` with the task's own over it, in a settings file", read_settings)
    eval_batch_size: int = argument("the batch size of validation and test", int)
    rate: float | None = argument("a run of the search: its learning rate, one of the grid", float, default=None)
    chosen: str | None = argument("a seed past the search: its model's chosen.json, the rate to run at", default=None)

    @property
    def searching(self) -> bool:
        """A run of the search (its rate one of the grid), not a seed past it at the rate the search chose."""
        return self.chosen is None


def job_from(args) -> FinetuneJob:
    """The job that finetune's parsed arguments (add_arguments) describe: a rate of the grid, or its model's chosen
    rate, read from the file the search's choice wrote."""
    given = arguments_of(FinetuneJob, args)
    if ("rate" in given) == ("chosen" in given):
        raise DataError("a fine-tuning run takes one of --rate (a run of the search) and --chosen (a seed past it)")
    if "chosen" in given:
        given["rate"] = read_chosen(given["chosen"]).learning_rate
    return tracked(FinetuneJob(**given))
