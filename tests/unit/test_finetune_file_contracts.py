"""The files between fine-tuning jobs keep their contract: each has one module (its path pattern, its dataclasses,
its writer and its reader), no other module of the workflow spells one of its keys (CONTRACTS), and its reader
refuses an older or foreign file, naming the file and the field."""

import json
import re
from dataclasses import fields

import pytest
from finetune_data import metrics_json, probe_result, run_result, task_description
from helpers import spelled_elsewhere

from snakebert.errors import DataError
from snakebert.files.json_views import as_json
from snakebert.finetune import baselines_file, chosen_file, metrics_file, probe_file, run_file, task_file
from snakebert.finetune.baselines_file import BASELINES_FILE, BaselineResult, read_baselines, write_baselines
from snakebert.finetune.chosen_file import CHOSEN_FILE, ChosenRate
from snakebert.finetune.metrics_file import (
    METRICS_FILE,
    FoldRun,
    ReportedRun,
    TaskMetrics,
    read_task_metrics,
    write_task_metrics,
)
from snakebert.finetune.probe_file import PROBE_FILE, ProbeResult, read_probe, write_probe
from snakebert.finetune.run_file import RUN_FILE, RunResult, read_run, write_run
from snakebert.finetune.task_file import FOLD_DATA, TASK_DATA, TASK_FILE, TaskFile, read_task_file, write_task_file

# Per file (or part of one: metrics.json's runs and their folds): its module, its view, the keys a grep cannot hold to
# it, each with the reason, and how many of its keys the grep holds at least (that it still means something).
CONFIG_TASK_KEY = "also a key of a task's entry in the config (finetune.tasks), which the jobs that read it spell"
SEED = "a generic word: the data's shuffle seed, training's seed, a task split's seed, a run's fingerprint"
PREDICTIONS = "also a key of the fill-mask results (fill_mask_results.py)"
RUN_OF = {  # the keys a run's and a probe's result begin with (run_file.RunOf)
    "task": "a generic word: a config section's key, a report row",
    "model": "a generic word: the config's model section, metrics.json's models' folder",
    "kind": "also a key of metrics.json's models (which metrics_file.py reads), of a run's fingerprint (train.py)",
    "source": "a generic word: a config source, a pretraining block's text shard",
    "seed": SEED,
}
CONTRACTS = {
    "metrics.json": (
        metrics_file,
        TaskMetrics,
        {
            "task": "a generic word: a config section's key, a run file's key, a report row",
            "type": "a generic word: every config entry's type",
            "problem": CONFIG_TASK_KEY,
            "labels": "a generic word: the batches' labels (transformers' key)",
            "metrics": "a generic word: the task config's metrics",
            "splits": "a generic word: the prepared task's splits, a report row",
            "folds": "a generic word: the config's split.folds",
            "seeds": "a generic word: the config's finetune.seeds",
            "tag_scheme": CONFIG_TASK_KEY,
            "linear_probe": "also the config's finetune.linear_probe and the probe jobs' protocol",
        },
        11,
    ),
    "task.json": (
        task_file,
        TaskFile,
        {
            "task": "a generic word: a config section's key, a run file's key, a report row",
            "type": "a generic word: every config entry's type",
            "problem": CONFIG_TASK_KEY,
            "labels": "a generic word: the batches' labels (transformers' key)",
            "metrics": CONFIG_TASK_KEY,
            "text_pair": "also the prepared splits' second text column (examples.PAIR)",
            "tag_scheme": CONFIG_TASK_KEY,
            "allow_unanswerable": CONFIG_TASK_KEY,
            "folds": "a generic word: the config's split.folds, a pooled run's folds",
            "splits": "a generic word: the prepared task's splits, a report row",
        },
        5,  # those neither the config nor another file shares
    ),
    "a fine-tuning run's result": (
        run_file,
        RunResult,
        {
            **RUN_OF,
            "recipe": "also the config's finetune.recipe (plan.RECIPE_KEY) and the run's fingerprint",
            "search": "also a key of chosen.json and the search runs' folder in rules/finetune.smk",
            "validation": "a split's name",
            "test": "a split's name",
            "predictions": PREDICTIONS,
            "machine": "also a key of the MLM evaluation's results (eval_metrics.py)",
        },
        5,
    ),
    "a linear probe's result": (
        probe_file,
        ProbeResult,
        {
            **RUN_OF,
            "validation": "a split's name",
            "test": "a split's name",
            "predictions": PREDICTIONS,
            "machine": "also a key of the MLM evaluation's results (eval_metrics.py)",
        },
        4,
    ),
    "baselines.json": (
        baselines_file,
        BaselineResult,
        {
            "validation": "a split's name",
            "test": "a split's name",
            "predictions": PREDICTIONS,
        },
        2,
    ),
    "metrics.json's runs": (
        metrics_file,
        ReportedRun,
        {
            "seed": SEED,
            "validation": "a split's name",
            "test": "a split's name",
            "folds": "a generic word: the config's split.folds",
        },
        5,
    ),
    "a pooled run's folds": (
        metrics_file,
        FoldRun,
        {
            "validation": "a split's name",
            "test": "a split's name",
        },
        5,
    ),
    "chosen.json": (
        chosen_file,
        ChosenRate,
        {
            "model": "a generic word: the config's model section, metrics.json's models' folder",
            "learning_rate": "also the config's finetune.recipe key and the trainers' setting",
            "search": "also the search runs' folder in rules/finetune.smk",
        },
        1,
    ),
}

# Modules that still spell a file's path, each with the reason.
PATH_SKIPPED = {
    "snakebert/data/task_source.py": "a task source's input folder (task_data): the data layer cannot import finetune/",
}


@pytest.mark.parametrize("name", CONTRACTS)
def test_no_module_but_the_files_own_spells_one_of_its_keys(name):
    module, view, skipped, least = CONTRACTS[name]
    keys = [each.name for each in fields(view)]
    assert set(skipped) <= set(keys), "a skipped key the file no longer holds"
    checked = [key for key in keys if key not in skipped]
    assert len(checked) >= least, checked
    assert spelled_elsewhere(module, checked) == {}
    assert set(spelled_elsewhere(module, list(skipped))) == set(skipped), "a skip whose reason no longer holds"


@pytest.mark.parametrize(
    ("module", "paths"),
    [
        (metrics_file, [METRICS_FILE]),
        (task_file, [TASK_DATA, FOLD_DATA, TASK_FILE]),
        (run_file, [RUN_FILE]),
        (probe_file, [PROBE_FILE]),
        (baselines_file, [BASELINES_FILE]),
        (chosen_file, [CHOSEN_FILE]),
    ],
    ids=["metrics.json", "task.json", "a run's result", "a probe's result", "baselines.json", "chosen.json"],
)
def test_no_other_module_spells_the_files_path(module, paths):
    found = spelled_elsewhere(module, [re.escape(path) for path in paths])
    assert {path: sorted(set(where) - set(PATH_SKIPPED)) for path, where in found.items()} == dict.fromkeys(found, [])


@pytest.fixture
def results(tmp_path):
    """A task's results written as summarize_finetune writes them."""
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(metrics_json("party", "classification", ["accuracy", "macro_f1"], [0.6, 0.58])))
    return path


def test_the_results_read_back_whole_and_are_written_again_in_the_files_order(results, tmp_path):
    found = read_task_metrics(str(results))
    assert as_json(found) == json.loads(results.read_text())
    assert found.models["random"].summary["macro_f1"].median == pytest.approx(0.58 * 0.8)
    write_task_metrics(str(tmp_path / "again.json"), found)
    again = (tmp_path / "again.json").read_text()
    assert list(json.loads(again)) == [
        each.name for each in fields(TaskMetrics) if each.name not in ("tag_scheme", "entities")
    ]
    assert read_task_metrics(str(tmp_path / "again.json")) == found


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda value: value.pop("adaptation_gain"), r"KeyError\('adaptation_gain'\)"),  # an older summary's
        (lambda value: value["bootstrap"].update(resamples=1000.0), r"its 'resamples' is 1000.0, not an integer"),
        (lambda value: value.update(learning_rates=[1e-3]), r"its 'learning_rates' is \[0.001\], not an object"),
        (lambda value: value["models"]["random"].pop("summary"), r"KeyError\('summary'\)"),
    ],
)
def test_an_older_or_edited_results_file_is_refused_naming_the_file_and_the_field(results, edit, named):
    value = json.loads(results.read_text())
    edit(value)
    results.write_text(json.dumps(value))
    with pytest.raises(DataError, match=rf"{re.escape(str(results))}: not a fine-tuning metrics file of this workflow "
                                        rf"\(.*{named}"):  # fmt: skip
        read_task_metrics(str(results))


def test_a_foreign_file_is_refused_naming_the_first_field_it_lacks(tmp_path):
    evaluation = tmp_path / "metrics.json"  # the held-out MLM evaluation's, of the same name
    evaluation.write_text(json.dumps({"mlm_loss": 4.9, "perplexity": 135.9}))
    with pytest.raises(DataError, match=r"not a fine-tuning metrics file of this workflow \(KeyError\('task'\)\)"):
        read_task_metrics(str(evaluation))


TASK = as_json(task_description(splits={"train": {"examples": 120, "groups": 7, "sha256": "0" * 64}}))


def test_a_task_description_reads_back_whole_and_is_written_again_byte_for_byte(tmp_path):
    (tmp_path / TASK_FILE).write_text(json.dumps(TASK, indent=1) + "\n")
    found = read_task_file(tmp_path / TASK_FILE)
    assert found.labels == ("Democratic", "Republican") and found.splits["train"]["examples"] == 120
    (tmp_path / "again").mkdir()
    write_task_file(tmp_path / "again", found)
    assert (tmp_path / "again" / TASK_FILE).read_bytes() == (tmp_path / TASK_FILE).read_bytes()
    assert list(as_json(found)) == [each.name for each in fields(TaskFile)]


@pytest.mark.parametrize(
    ("edited", "named"),
    [
        (lambda task: {key: value for key, value in task.items() if key != "carved"}, r"KeyError\('carved'\)"),
        (lambda task: {**task, "folds": 3.0}, r"its 'folds' is 3.0, not an integer"),
        (lambda task: {"mlm_loss": 4.9}, r"KeyError\('task'\)"),  # another file
    ],
)
def test_an_older_edited_or_foreign_task_description_is_refused_naming_the_file_and_the_field(tmp_path, edited, named):
    path = tmp_path / TASK_FILE
    path.write_text(json.dumps(edited(TASK)))
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}: not a task file of this workflow \(.*{named}"):
        read_task_file(path)


def test_a_runs_result_is_written_in_the_files_order_and_read_back_whole(tmp_path):
    run = run_result(test=None, no_answer_threshold=0.4)  # a task reporting validation, its questions maybe unanswered
    write_run(str(tmp_path / "seed-1.json"), run)
    written = json.loads((tmp_path / "seed-1.json").read_text())
    assert list(written) == [each.name for each in fields(RunResult) if each.name != "test"]
    assert read_run(str(tmp_path / "seed-1.json")) == run


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda run: run.pop("diverged"), r"KeyError\('diverged'\)"),  # an older run's
        (lambda run: run.update(seed=1.0), r"its 'seed' is 1.0, not an integer"),
        (lambda run: run.update(classes_predicted={"test": 2.0}), r"its 'classes_predicted' is 2.0, not an integer"),
    ],
)
def test_an_older_or_edited_runs_result_is_refused_naming_the_file_and_the_field(tmp_path, edit, named):
    path = tmp_path / "seed-1.json"
    run = as_json(run_result())
    edit(run)
    path.write_text(json.dumps(run))
    refusal = rf"{re.escape(str(path))}: not a fine-tuning result of this workflow \(.*{named}"
    with pytest.raises(DataError, match=refusal):
        read_run(str(path))


def test_a_probes_result_and_the_baselines_are_written_in_the_files_order_and_read_back_whole(tmp_path):
    probe = probe_result(test=None, no_answer_threshold=0.4)  # a task reporting validation, questions maybe unanswered
    write_probe(str(tmp_path / "seed-1.json"), probe)
    written = json.loads((tmp_path / "seed-1.json").read_text())
    assert list(written) == [each.name for each in fields(ProbeResult) if each.name != "test"]
    assert read_probe(str(tmp_path / "seed-1.json")) == probe
    baselines = {
        "majority": BaselineResult(validation={"accuracy": 0.5}, test={"accuracy": 0.4}, predictions=[1], fold=2),
        "tfidf": BaselineResult(validation={"accuracy": 0.7}, predictions=[0], strength=10.0, fold=2),
    }
    write_baselines(str(tmp_path / "baselines.json"), baselines)
    written = json.loads((tmp_path / "baselines.json").read_text())
    assert [list(found) for found in written.values()] == [
        ["validation", "test", "predictions", "fold"],
        ["validation", "predictions", "strength", "fold"],
    ]
    assert read_baselines(str(tmp_path / "baselines.json")) == baselines


@pytest.mark.parametrize(
    ("what", "read", "written", "named"),
    [
        (
            "linear-probe result",
            read_probe,
            {**as_json(probe_result()), "seed": 1.0},
            r"its 'seed' is 1.0, not an integer",
        ),
        ("linear-probe result", read_probe, {"mlm_loss": 4.9}, r"KeyError\('task'\)"),  # another file
        ("baselines file", read_baselines, {"majority": {"validation": {}, "predictions": []}}, r"KeyError\('fold'\)"),
        ("baselines file", read_baselines, {"majority": [0.5]}, r"TypeError"),
    ],
)
def test_an_older_edited_or_foreign_probe_or_baselines_file_is_refused_naming_the_file_and_the_field(
    tmp_path, what, read, written, named
):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(written))
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}: not a {what} of this workflow \(.*{named}"):
        read(str(path))
