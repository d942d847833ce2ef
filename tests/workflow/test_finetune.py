"""Fine-tuning through the workflow, on a copy of the trained tiny run: a sentence-pair `files` task in 2 folds by
group, a `hub` task from a local folder laid out like GLUE's, a word-tagging task from a CoNLL file, a
question-answering task from a SQuAD v2.0 file and a reference model from a local folder, all in one run beside random
initialisation and the baselines (a regression task runs the same jobs' code in tests/unit/test_finetune_train.py);
what a `finetune` change reruns (never pretraining); identical splits, runs and baselines from a forced rerun; bad
tasks refused with the file or key named and no metrics file."""

import json
import shutil
import statistics
from pathlib import Path

import pytest
import yaml
from finetune_data import (
    pair_rows,
    squad_articles,
    tagged_rows,
    write_conll,
    write_csv,
    write_glue_folder,
    write_squad,
)
from helpers import planned_jobs, snakemake
from shared_builds import copy_build
from tensorboard_history import events, scalars

from snakebert.finetune.interval import NO_WIDTH, NONE_SCORED

VERDICTS = {"yes", "no", "not shown at this test size", NO_WIDTH, NONE_SCORED}  # the splits hold 6 groups or more
FINETUNE_RULES = {"prepare_task", "finetune", "choose_rate", "linear_probe", "finetune_baselines", "summarize_finetune"}
AFTER_FINETUNING = {"all", "plot_downstream", "report_summary", "model_card"}


@pytest.fixture(scope="module")
def copied(trained, tmp_path_factory):
    """A copy of the trained run (its results and Snakemake's records), with labelled data beside it."""
    workdir = copy_build(trained, tmp_path_factory.mktemp("finetune") / "work")
    shutil.copy(workdir / "test-config.yaml", workdir / "trained-config.yaml")
    write_csv(workdir / "labelled/pairs.csv", pair_rows(60))
    write_conll(workdir / "labelled/tags.conll", tagged_rows(60))
    write_squad(workdir / "labelled/squad.json", squad_articles(15))
    write_glue_folder(workdir / "glue")
    shutil.copytree(workdir / "results/model", workdir / "reference-model")
    return workdir


def with_finetune(workdir, **settings) -> dict:
    """The trained run's config with `finetune` settings over its own."""
    config = yaml.safe_load((workdir / "trained-config.yaml").read_text())
    config["finetune"] = {**config["finetune"], **settings}
    return config


TASKS = [
    {"name": "pairs", "type": "files", "format": "csv", "train": "labelled/pairs.csv", "text_column": "first",
     "text_pair_column": "second", "label_column": "label", "group_column": "doc",
     "split": {"validation_fraction": 0.2, "folds": 2}},
    {"name": "mrpc", "type": "hub", "preset": "glue/mrpc", "path": "glue"},
    {"name": "tags", "type": "files", "format": "conll", "train": "labelled/tags.conll", "label_column": "label",
     "problem": "token_classification", "split": {"validation_fraction": 0.2, "test_fraction": 0.4}},
    {"name": "answers", "type": "files", "format": "squad", "train": "labelled/squad.json", "problem": "extractive_qa",
     "allow_unanswerable": True, "split": {"validation_fraction": 0.2, "test_fraction": 0.4}},
]  # fmt: skip
BASELINES = {"tags": ["majority", "word_tags"], "answers": ["squad_sentence"]}  # the others: majority and tfidf
COMPARE = [{"name": "reference", "model": "reference-model"}]


@pytest.fixture(scope="module")
def finetuned(copied):
    config = with_finetune(copied, tasks=TASKS, compare=COMPARE, seeds=1)
    planned = planned_jobs(copied, config)
    snakemake(copied, config=config)
    return copied, planned


def test_one_run_fine_tunes_every_task_and_model_and_nothing_before_it(finetuned):
    workdir, planned = finetuned
    assert planned == {"all": 1, "prepare_task": 4, "finetune": 15, "choose_rate": 12, "linear_probe": 15,
                       "finetune_baselines": 5, "summarize_finetune": 4, "plot_downstream": 1, "report_summary": 1,
                       "model_card": 1}  # fmt: skip
    results = {task["name"]: json.loads((workdir / f"results/finetune/{task['name']}/metrics.json").read_text())
               for task in TASKS}  # fmt: skip
    for name, found in results.items():
        baselines = BASELINES.get(name, ["majority", "tfidf"])
        assert list(found["models"]) == ["pretrained", "random", "reference", *baselines]
        assert found["models"]["reference"]["kind"] == "reference" and found["seeds"] == [1]
        assert list(found["linear_probe"]["models"]) == list(found["models"])
        assert found["linear_probe"]["pretraining_gain"]["verdict"] in VERDICTS
    assert results["pairs"]["labels"] == ["different", "same"] and results["pairs"]["reported_split"] == "test"
    pairs = results["pairs"]  # 15 docs of 4 rows in 2 folds: each row tested once, the runs pooled seed by seed
    assert pairs["folds"] == 2 and pairs["splits"]["test"]["examples"] == 60 and pairs["bootstrap"]["groups"] == 15
    for section in (pairs, pairs["linear_probe"]):
        for name in ("pretrained", "random", "reference"):
            assert all([fold["fold"] for fold in run["folds"]] == [1, 2] for run in section["models"][name]["runs"])
    assert results["mrpc"]["labels"] == ["not_equivalent", "equivalent"] and results["mrpc"]["main_metric"] == "f1"
    assert results["mrpc"]["splits"]["test"]["examples"] == 24
    tags = results["tags"]  # 15 documents of 4 sentences: the groups the splits and the bootstrap keep whole
    assert tags["labels"] == ["O", "B-NAME", "I-NAME"] and tags["main_metric"] == "entity_f1"
    assert tags["problem"] == "token_classification" and tags["bootstrap"]["groups"] == 6
    assert sum(split["groups"] for split in tags["splits"].values()) == 15
    card = (workdir / "results/cards/model/README.md").read_text()
    assert "type: token-classification" in card and "type: text-classification" in card
    assert "type: question-answering" in card
    answers = results["answers"]  # 15 articles of 5 questions, one unanswerable: the splits keep articles whole
    assert answers["problem"] == "extractive_qa" and answers["main_metric"] == "squad_f1"
    assert answers["splits"]["test"]["questions"] == 30 and answers["splits"]["test"]["unanswerable"] == 6
    assert answers["bootstrap"]["groups"] == 6
    summary = (workdir / "results/report/summary.html").read_text()
    assert all(f"Downstream: {task['name']}" in summary for task in TASKS)
    assert "did pretraining pay? (fine-tuned)" in summary and "did pretraining pay? (linear probe)" in summary
    assert "<svg" in (workdir / "results/report/downstream.svg").read_text()
    assert not (workdir / "checkpoints/finetune").exists()  # every run removed its folders


def test_every_fine_tuning_run_keeps_a_history_of_its_epochs(finetuned):
    """logs/tracking/finetune/ mirrors each run's path; its validation curve has a point per epoch, whose best is the
    score of the epoch the run kept."""
    workdir, _ = finetuned
    runs = [
        path for task in TASKS for path in (workdir / "results/finetune" / task["name"]).glob("runs/**/seed-1.json")
    ]
    assert len(runs) == 15
    for path in runs:
        run = json.loads(path.read_text())
        task, _, *rest = path.relative_to(workdir / "results/finetune").with_suffix("").parts
        main = json.loads((workdir / f"results/finetune/{task}/metrics.json").read_text())["main_metric"]
        curve = [
            value
            for _, value in scalars(events(workdir / "logs/tracking/finetune" / task / Path(*rest)), f"eval/{main}")
        ]
        assert len(curve) == run["recipe"]["epochs"], path
        kept = run["validation"][main]  # None: an undefined correlation, which the curve shows as the worst, -1
        assert max(curve) == pytest.approx(-1.0 if kept is None else kept, abs=1e-6), path


def test_a_forced_rerun_gives_identical_splits_runs_and_baselines(finetuned, tmp_path):
    """Each stage that draws at random, forced to run again in a copy of the run: the task's splits, a fine-tuning
    run of the pretrained model and the baselines come out byte-identical (metrics.json is their summary)."""
    workdir = copy_build(finetuned[0], tmp_path / "work")
    targets = [
        "results/finetune/pairs/runs/pretrained/lr-0.005/fold-2/seed-1.json",
        "results/finetune/pairs/fold-2/baselines.json",
        "results/finetune/tags/runs/pretrained/lr-0.005/seed-1.json",
        "results/finetune/tags/baselines.json",
    ]
    data = [workdir / f"results/finetune/{task}/data" for task in ("pairs", "tags")]
    splits = sorted(path for folder in data for path in folder.rglob("*") if path.is_file())
    files = [workdir / target for target in targets] + splits
    before = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in files}
    config = with_finetune(workdir, tasks=TASKS, compare=COMPARE, seeds=1)
    snakemake(workdir, *targets, "--forcerun", "prepare_task", config=config)  # targets first: --forcerun takes a list
    assert splits and all(path.stat().st_mtime_ns != before[path][1] for path in files)  # each written again
    assert {path: path.read_bytes() for path in files} == {path: content for path, (content, _) in before.items()}


@pytest.mark.parametrize(
    ("change", "reruns"),
    [
        ({"recipe": {"learning_rate": 1e-3, "epochs": 2, "batch_size": 16, "max_length": 32}}, {"finetune": 15}),
        (
            {"recipe": {"learning_rate": [5e-3, 1e-2], "epochs": 2, "batch_size": 16, "max_length": 32}},
            {"finetune": 15},
        ),
        ({"seeds": 2}, {"finetune": 15}),
        ({"compare": []}, {}),
    ],
)
def test_a_finetune_change_reruns_fine_tuning_only(finetuned, change, reruns):
    workdir, _ = finetuned
    config = with_finetune(workdir, **{"tasks": TASKS, "compare": COMPARE, "seeds": 1, **change})
    planned = planned_jobs(workdir, config)
    assert set(planned) <= FINETUNE_RULES | AFTER_FINETUNING
    assert {rule: count for rule, count in planned.items() if rule == "finetune"} == reruns
    assert "prepare_task" not in planned


def test_a_grid_searched_with_one_seed_then_runs_the_chosen_rate_with_the_other_seeds(finetuned, tmp_path):
    """Two rates tried with seed 1 on each of the 2 folds, then seed 2 at each model's chosen rate: the DAG fixed at
    parse time (the chosen runs' input is the model's chosen.json, which choose_rate writes from its search runs on
    every fold), and a chosen run at the rate whose median validation score over the folds is best (test labels cannot
    move it: tests/unit/test_finetune_train.py)."""
    workdir = copy_build(finetuned[0], tmp_path / "work")
    recipe = {"learning_rate": [1e-4, 2e-2], "epochs": 2, "batch_size": 16, "max_length": 32}
    config = with_finetune(workdir, tasks=[TASKS[0]], compare=[], seeds=2, search_seeds=1, recipe=recipe)
    planned = planned_jobs(workdir, config, "results/finetune/pairs/metrics.json")
    assert planned["finetune"] == 12 and "prepare_task" not in planned  # 2 models x 2 folds x (2 rates + 1 seed)
    assert planned["choose_rate"] == 2  # once per model, read by its chosen runs and the summary
    snakemake(workdir, "results/finetune/pairs/runs/pretrained/chosen/fold-1/seed-2.json", config=config)
    runs = workdir / "results/finetune/pairs/runs/pretrained"
    made = sorted(path.relative_to(runs).as_posix() for path in runs.rglob("*.json"))
    searched = [f"lr-{rate}/fold-{fold}/seed-1.json" for rate in ("0.0001", "0.005", "0.02") for fold in (1, 2)]
    assert made == ["chosen.json", "chosen/fold-1/seed-2.json", *searched]  # lr-0.005: the copied run's own rate
    medians = {
        rate: statistics.median(
            json.loads((runs / f"lr-{rate}/fold-{fold}/seed-1.json").read_text())["validation"]["macro_f1"]
            for fold in (1, 2)
        )
        for rate in ("0.0001", "0.02")
    }
    best = max(medians, key=medians.get)  # the first of the list on ties
    chosen = json.loads((runs / "chosen/fold-1/seed-2.json").read_text())
    assert chosen["recipe"]["learning_rate"] == float(best) and chosen["search"] is False
    choice = json.loads((runs / "chosen.json").read_text())
    assert choice["learning_rate"] == float(best) and [tried["runs"] for tried in choice["search"]] == [2, 2]
    assert (chosen["seed"], chosen["fold"]) == (2, 1)


def test_a_task_split_change_reprepares_that_task_only(finetuned):
    workdir, _ = finetuned
    tasks = [{**TASKS[0], "split": {"validation_fraction": 0.3, "test_fraction": 0.2}}, *TASKS[1:]]
    planned = planned_jobs(workdir, with_finetune(workdir, tasks=tasks, compare=COMPARE, seeds=1))
    assert planned["prepare_task"] == 1 and planned["finetune"] == 3 and "pretrain" not in planned


def test_a_missing_task_file_is_refused_when_the_workflow_is_parsed(copied):
    """A task's files are prepare_task's inputs: a missing one is Snakemake's own refusal as it builds the DAG (the
    finetune settings refused by config_checks are checked in tests/unit/test_config_checks.py)."""
    tasks = [{**TASKS[0], "name": "absent", "train": "labelled/none.csv"}]
    done = snakemake(copied, "-n", config=with_finetune(copied, tasks=tasks), check=False)
    assert done.returncode != 0
    assert "labelled/none.csv" in done.stdout + done.stderr


def test_a_bad_task_or_model_fails_its_job_naming_it_and_leaves_no_metrics(copied, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the missing model is named at once, without the Hub's retries
    tasks = [{**TASKS[0], "name": "nolabel", "label_column": "gold"}]
    done = snakemake(copied, config=with_finetune(copied, tasks=tasks, seeds=1), check=False)
    assert done.returncode != 0, done.stdout + done.stderr
    log = (copied / "logs/finetune/nolabel/prepare_task.log").read_text()
    assert "labelled/pairs.csv: no column 'gold' (columns: first, second, label, doc)" in log
    assert not (copied / "results/finetune/nolabel").exists()
    compare = [{"name": "generic", "model": "someone/missing-bert"}]
    config = with_finetune(copied, tasks=[TASKS[0]], compare=compare, seeds=1)
    target = "results/finetune/pairs/runs/generic/lr-0.005/fold-1/seed-1.json"
    done = snakemake(copied, target, config=config, check=False)
    assert done.returncode != 0
    log = (copied / "logs/finetune/pairs/generic/lr-0.005/fold-1/seed-1.log").read_text()
    assert "finetune model 'generic' 'someone/missing-bert' could not be loaded: tried a folder" in log
    assert not (copied / "results/finetune/pairs/runs/generic").exists()
