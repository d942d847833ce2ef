"""The plan is bounded when the workflow is read: a learning-rate grid of at most 10 rates, at most 10 folds, at most
MAX_JOBS fine-tuning jobs in all, at most 8 pretraining phases (each block size packs every shard again) and a metric
once per task, each refusal naming its keys (20,007 planned jobs took 45 s and 660 MB to plan, and their summary's
command passed the kernel's limit on one argument)."""

import copy

import pytest
import yaml
from helpers import REPO

from snakebert.config_checks import config_problems
from snakebert.config_validation import ConfigError, validate_config
from snakebert.finetune.plan import MAX_JOBS, model_run_count, model_runs, task_job_count, task_recipe

TASK = {"name": "t", "type": "embedded"}


def validated(finetune: dict) -> dict:
    """The default config with `finetune` over its own section."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["finetune"] = finetune
    validate_config(config)
    return config


def grid(count: int) -> list[float]:
    return [round(0.001 * (index + 1), 3) for index in range(count)]


@pytest.mark.parametrize(
    ("finetune", "key"),
    [
        ({"recipe": {"learning_rate": grid(11)}}, "finetune.recipe.learning_rate"),
        ({"tasks": [{**TASK, "recipe": {"learning_rate": grid(10_000)}}]}, "finetune.tasks[0].recipe.learning_rate"),
    ],
)
def test_a_grid_of_more_than_ten_rates_is_refused_naming_the_key(finetune, key):
    with pytest.raises(ConfigError) as refused:
        validated(finetune)
    assert str(refused.value).startswith(f"config {key}: [0.001, 0.002, ")


def test_more_than_eight_phases_are_refused_naming_the_key():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["pretrain"]["phases"] = [{"block_size": 8 + index, "fraction": 1 / 9} for index in range(9)]
    with pytest.raises(ConfigError, match=r"^config pretrain.phases: \[\{'block_size': 8, "):
        validate_config(config)


def test_a_metric_named_twice_is_refused_naming_the_key():
    task = {"name": "t", "type": "files", "format": "csv", "train": "t.csv", "label_column": "y"}
    with pytest.raises(
        ConfigError, match=r"^config finetune.tasks\[0\].metrics: \['accuracy', 'accuracy'\] has non-unique"
    ):
        validated({"tasks": [{**task, "metrics": ["accuracy", "accuracy"]}]})


def test_more_than_ten_folds_are_refused_naming_the_key():
    task = {**TASK, "split": {"validation_fraction": 0.15, "test_fraction": 0, "folds": 11}}
    with pytest.raises(ConfigError, match=r"^config finetune.tasks\[0\].split.folds: 11 is greater than the maximum"):
        validated({"tasks": [task]})
    validated({"tasks": [{**task, "split": {**task["split"], "folds": 10}}]})


def test_a_plan_of_more_than_max_jobs_is_refused_alone_naming_the_keys_and_the_count():
    """Ten rates with 101 search seeds for 4 models (pretrained, random and two compared): 4,040 runs, with the task's
    preparation, its baseline, each model's rate choice, its 4 linear probes and its summary 4,051 jobs. Reported
    alone (not beside the search past the seeds): the other checks walk the plan's tasks and models."""
    compared = [{"name": "x", "model": "someone/bert"}, {"name": "y", "model": "someone/roberta"}]
    finetune = {"seeds": 100, "search_seeds": 101, "recipe": {"learning_rate": grid(10)}, "compare": compared}
    [problem] = config_problems(validated({**finetune, "tasks": [TASK]}))
    assert problem.startswith(f"config finetune: 4,051 fine-tuning jobs planned, more than the {MAX_JOBS:,} allowed:")
    for key in ("finetune.tasks", "finetune.compare", "recipe.learning_rate", "split.folds", "finetune.seeds"):
        assert key in problem


def test_a_plan_of_max_jobs_passes():
    seeds = (MAX_JOBS - 7) // 20  # 10 rates for 2 models, with the task's 7 other jobs (2 of them the rate choices)
    config = validated({"seeds": seeds, "search_seeds": None, "recipe": {"learning_rate": grid(10)}, "tasks": [TASK]})
    assert task_job_count(config["finetune"]["tasks"][0], config["finetune"], 2) == 20 * seeds + 7 <= MAX_JOBS
    assert config_problems(config) == []


@pytest.mark.parametrize("folds", [None, 3])
@pytest.mark.parametrize(("rates", "seeds", "search_seeds"), [(1, 3, None), (1, 3, 1), (4, 5, None), (4, 5, 2)])
def test_the_count_of_a_models_runs_is_the_length_of_their_list(folds, rates, seeds, search_seeds):
    split = {"validation_fraction": 0.15, "test_fraction": 0, "folds": folds}
    finetune = {"seeds": seeds, "search_seeds": search_seeds, "recipe": {"learning_rate": grid(rates)}}
    finetune = validated({**finetune, "tasks": [{**TASK, "split": split}]})["finetune"]
    task = finetune["tasks"][0]
    recipe = task_recipe(finetune, task)
    assert model_run_count(task, finetune, recipe) == len(model_runs(task, finetune, recipe, "pretrained"))
    probed = copy.deepcopy(finetune) | {"protocols": ["linear_probe"]}
    folds_count = folds or 1
    assert task_job_count(task, probed, 3) == 2 + folds_count + 3 * folds_count
