"""Fine-tuning runs on a tiny saved BERT through the real Trainer: reproducible to the digit, resumed after a kill
with the same result, random initialisation and reference models started as named, and a reference model that
cannot be used refused before any step, without output."""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
import torch
import transformers
from finetune_data import WORDS, number_rows, pair_rows, run_result, write_csv
from finetune_jobs import summarized
from helpers import REPO, save_tiny_model, write_jsonl
from shape_log import changed_ops, training_step_shapes
from tensorboard_history import events, scalars
from tracker_histories import mlflow_history, mlflow_runs, wandb_history

from snakebert.config_defaults import schema_defaults
from snakebert.errors import DataError
from snakebert.files.json_views import as_json
from snakebert.files.settings_files import settings_file
from snakebert.files.tracking_settings import read_tracking_settings, write_tracking_settings
from snakebert.finetune.baselines import run_baselines
from snakebert.finetune.chosen_file import read_chosen, write_chosen
from snakebert.finetune.encoded import EncodedSplit
from snakebert.finetune.job import FinetuneJob, job_from
from snakebert.finetune.linear_probe import probe_model
from snakebert.finetune.metrics_file import task_metrics
from snakebert.finetune.prepare import prepare_task, read_task_dir
from snakebert.finetune.rates import choose_rate, chosen_rate
from snakebert.finetune.run_file import read_run
from snakebert.finetune.run_folder import remove_finished
from snakebert.finetune.task_file import TASK_FILE, read_task_file
from snakebert.finetune.train import build_trainer, finetune, load_model, load_tokenizer
from snakebert.job_arguments import add_arguments
from snakebert.report.downstream import task_rows
from snakebert.training.job import tracked
from snakebert.training.trainers import SealedCheckpoints

RECIPE = {"learning_rate": 5e-3, "epochs": 3, "batch_size": 8, "max_length": 16, "warmup_ratio": 0.1,
          "weight_decay": 0.01}  # fmt: skip


def files_task(path, **overrides) -> dict:
    task = {"name": "pairs", "type": "files", "format": "csv", "train": str(path), "validation": None, "test": None,
            "text_column": "first", "text_pair_column": "second", "label_column": "label", "group_column": "doc",
            "problem": None, "metrics": None,
            "split": {"validation_fraction": 0.2, "test_fraction": 0.2, "seed": 0, "folds": None},
            "recipe": {}}  # fmt: skip
    return {**task, **overrides}


@pytest.fixture(scope="module")
def prepared(tiny_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("finetune")
    model = save_tiny_model(tiny_data.tokenizer, root / "model")
    pairs = root / "pairs"
    prepare_task(files_task(write_csv(root / "pairs.csv", pair_rows(80))), str(pairs))
    return root, model, pairs


def job(prepared, tmp_path, kind="pretrained", model=None, **overrides) -> FinetuneJob:
    root, own, task = prepared
    settings = {"task_dir": str(task), "name": kind, "kind": kind, "source": model or own, "seed": 1,
                "recipe": RECIPE, "rate": 5e-3, "eval_batch_size": 8, "backend": "cpu",
                "checkpoints": str(tmp_path / "checkpoints"), **overrides}  # fmt: skip
    return FinetuneJob(**settings)


def test_two_runs_give_identical_results_and_leave_no_checkpoint(prepared, tmp_path):
    first = finetune(job(prepared, tmp_path), str(tmp_path / "a.json"))
    second = finetune(job(prepared, tmp_path), str(tmp_path / "b.json"))
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert first == second and set(first.test) == {"macro_f1", "accuracy"}
    assert 1 <= first.best_epoch <= 3 and first.recipe == RECIPE and first.search is True
    assert set(first.classes_predicted) == {"validation", "test"} and first.classes_predicted["test"] in (1, 2)
    assert not any((tmp_path / "checkpoints").glob("*/checkpoint-*"))


def test_a_run_reports_each_epochs_validation_scores_to_every_tracker(prepared, tmp_path):
    """TensorBoard, W&B (offline) and MLflow (a file store) each hold the run's validation curve, a point per epoch,
    the same in each, whose best is the epoch the run kept; the W&B and MLflow runs are named for the run's folder."""
    store, trackers = tmp_path / "mlflow", ("tensorboard", "wandb", "mlflow")
    options = {**schema_defaults("tracking"), "trackers": list(trackers), "mlflow": {"tracking_uri": str(store)}}
    file = write_tracking_settings(options, str(tmp_path / "tracking.json"))  # as the workflow writes it
    history = tmp_path / "logs/tracking/finetune/pairs/pretrained/lr-0.005/seed-1"
    tracked_job = tracked(job(prepared, tmp_path, tracking=read_tracking_settings(file), tracking_dir=str(history)))
    assert tracked_job.trackers == trackers  # as job_from reads them
    result = finetune(tracked_job, str(tmp_path / "run.json"))
    curve = scalars(events(history), "eval/macro_f1")
    assert len(curve) == RECIPE["epochs"]
    [run] = mlflow_runs(store)
    assert run.info.run_name == "finetune/pairs/pretrained/lr-0.005/seed-1"
    for points in (wandb_history(history, "eval/macro_f1"), mlflow_history(store, run.info.run_id, "eval_macro_f1")):
        assert [step for step, _ in points] == [step for step, _ in curve]
        assert [value for _, value in points] == pytest.approx([value for _, value in curve], rel=1e-6)
    assert max(value for _, value in curve) == pytest.approx(result.validation["macro_f1"], abs=1e-6)


def test_a_chosen_run_takes_the_rate_its_search_chose_on_validation_and_a_rate_off_the_grid_is_refused(
    prepared, tmp_path
):
    grid = [1e-3, 5e-3, 2e-2]
    search = []
    for rate, scores in ((1e-3, [0.5, 0.9]), (5e-3, [0.7, 0.8]), (2e-2, [None, 0.75])):  # medians 0.7, 0.75, 0.75
        for seed, score in enumerate(scores, 1):
            search.append(str(tmp_path / f"search-{rate}-{seed}.json"))
            run = run_result(seed=seed, recipe={**RECIPE, "learning_rate": rate}, validation={"macro_f1": score})
            Path(search[-1]).write_text(json.dumps(as_json(run)))
    chosen = tmp_path / "chosen.json"
    write_chosen(str(chosen), choose_rate(str(prepared[2] / "task.json"), search, grid))
    assert read_chosen(str(chosen)).learning_rate == 5e-3  # the first of the two best medians
    assert [tried.validation for tried in read_chosen(str(chosen)).search] == [0.7, 0.75, 0.75]
    parser = argparse.ArgumentParser()
    add_arguments(parser, FinetuneJob)
    recipe = settings_file({**RECIPE, "learning_rate": grid}, tmp_path)
    given = ["--task-dir", str(prepared[2]), "--name", "pretrained", "--kind", "pretrained",
             "--source", str(prepared[1]), "--seed", "2", "--recipe", recipe,
             "--eval-batch-size", "8", "--backend", "cpu", "--checkpoints", str(tmp_path / "checkpoints")]  # fmt: skip
    chosen_job = job_from(parser.parse_args([*given, "--chosen", str(chosen)]))
    assert (chosen_job.rate, chosen_job.searching) == (5e-3, False)
    found = finetune(chosen_job, str(tmp_path / "run.json"))
    assert found.recipe == {**RECIPE, "learning_rate": 5e-3} and found.search is False
    with pytest.raises(DataError, match=r"finetune run at the learning rate 0.01: not a rate of the recipe's grid"):
        finetune(job_from(parser.parse_args([*given, "--rate", "0.01"])), str(tmp_path / "x.json"))
    assert not (tmp_path / "x.json").exists()
    for neither_or_both in ([], ["--rate", "0.01", "--chosen", str(chosen)]):
        with pytest.raises(DataError, match=r"takes one of --rate \(a run of the search\) and --chosen"):
            job_from(parser.parse_args([*given, *neither_or_both]))


def test_a_learning_rate_choice_of_another_shape_is_refused_naming_the_key(tmp_path):
    chosen = tmp_path / "chosen.json"
    chosen.write_text(json.dumps({"model": "pretrained", "learning_rate": 3e-3, "search": []}))
    with pytest.raises(DataError, match=r"chosen.json: not a learning-rate choice of this workflow \(KeyError\('met"):
        read_chosen(str(chosen))
    tried = {"learning_rate": 3e-3, "validation": 0.5, "runs": 1.0, "diverged": 0}  # a hand edit: runs 1.0
    chosen.write_text(
        json.dumps({"model": "pretrained", "metric": "macro_f1", "learning_rate": 0.003, "search": [tried]})
    )
    with pytest.raises(DataError, match=r"chosen.json: not a learning-rate choice .*'runs' is 1.0, not an integer"):
        read_chosen(str(chosen))


def search_runs(folder, outcomes: dict[float, list]) -> tuple[str, ...]:
    """Search results at each rate, seed by seed: a validation macro-F1, or "nan" for a run that diverged."""
    paths = []
    for rate, found in outcomes.items():
        for seed, outcome in enumerate(found, 1):
            diverged = f"training loss {outcome} in epoch 1" if outcome == "nan" else None
            run = run_result(
                seed=seed,
                recipe={**RECIPE, "learning_rate": rate},
                diverged=diverged,
                validation={"macro_f1": None if diverged else outcome},
            )
            paths.append(str(folder / f"search-{rate}-{seed}.json"))
            Path(paths[-1]).write_text(json.dumps(as_json(run)))
    return tuple(paths)


def test_a_rate_at_which_a_search_run_diverged_is_never_chosen(tmp_path):
    runs = [read_run(path) for path in search_runs(tmp_path, {1e-3: [0.5, 0.6], 5e-3: [0.9, "nan"]})]
    assert chosen_rate(runs, [1e-3, 5e-3], "macro_f1") == 1e-3  # 5e-3's one defined score is the best


def test_a_search_that_diverged_at_every_rate_is_refused_naming_the_task_model_and_rates(prepared, tmp_path):
    search = search_runs(tmp_path, {1e29: [0.7, "nan"], 1e30: ["nan", "nan"]})
    with pytest.raises(DataError) as refused:
        choose_rate(str(prepared[2] / "task.json"), list(search), [1e29, 1e30])
    assert str(refused.value) == (
        "finetune task 'pairs', model 'pretrained': fine-tuning diverged at every learning rate of the grid (1e+29, "
        "1e+30; at 1e+29, seed 2: training loss nan in epoch 1), so no rate has a score to report: lower the rates "
        "(finetune.recipe.learning_rate, or the task's recipe) and rerun"
    )


def test_test_labels_cannot_move_the_rate_a_search_chooses(prepared, tmp_path):
    """A search over two rates with seed 1, then seed 2 at the chosen rate, on a task with its own test file; then the
    same with the test file relabelled: the chosen rate and every validation score stay, the test scores move."""
    rows, grid = pair_rows(80), {**RECIPE, "learning_rate": [1e-4, 2e-2]}
    train = write_csv(tmp_path / "train.csv", rows[:60])
    found = []
    for flipped in (False, True):
        labels = {"same": "different", "different": "same"} if flipped else {}
        relabelled = [{**row, "label": labels.get(row["label"], row["label"])} for row in rows[60:]]
        folder = tmp_path / f"flipped-{flipped}"
        split = {"validation_fraction": 0.25, "test_fraction": 0, "seed": 0, "folds": None}
        prepare_task(
            files_task(train, test=str(write_csv(folder / "test.csv", relabelled)), split=split), str(folder / "task")
        )
        search = []
        for rate in grid["learning_rate"]:
            search.append(folder / f"lr-{rate!r}.json")
            finetune(job(prepared, tmp_path, recipe=grid, rate=rate, task_dir=str(folder / "task")), str(search[-1]))
        choice = choose_rate(str(folder / "task/task.json"), list(map(str, search)), grid["learning_rate"])
        chosen_file = str(folder / "chosen-rate.json")
        write_chosen(chosen_file, choice)
        chosen = job(prepared, tmp_path, recipe=grid, rate=choice.learning_rate, chosen=chosen_file, seed=2,
                     task_dir=str(folder / "task"))  # fmt: skip
        found.append([read_run(str(path)) for path in search] + [finetune(chosen, str(folder / "chosen.json"))])
    assert found[0][-1].recipe == found[1][-1].recipe
    assert [run.validation for run in found[0]] == [run.validation for run in found[1]]
    assert found[0][-1].test != found[1][-1].test


class Killed(Exception):
    """Stands in for a kill right after a checkpoint is written (tests only)."""


def counting_steps(monkeypatch) -> list[int]:
    """A spy on the trainer's training step: the list grows by one per step taken."""
    taken, step = [], transformers.Trainer.training_step

    def counted(self, *args, **kwargs):
        taken.append(1)
        return step(self, *args, **kwargs)

    monkeypatch.setattr(transformers.Trainer, "training_step", counted)
    return taken


def test_a_run_killed_after_a_checkpoint_resumes_to_the_same_result(prepared, tmp_path, monkeypatch, capsys):
    steps = counting_steps(monkeypatch)
    whole = finetune(job(prepared, tmp_path, checkpoints=str(tmp_path / "whole")), str(tmp_path / "whole.json"))
    whole_steps = len(steps)
    save = SealedCheckpoints._save_checkpoint

    def save_then_die(self, *args, **kwargs):
        save(self, *args, **kwargs)  # the checkpoint written and marked complete
        raise Killed

    monkeypatch.setattr(SealedCheckpoints, "_save_checkpoint", save_then_die)
    with pytest.raises(Killed):
        finetune(job(prepared, tmp_path), str(tmp_path / "resumed.json"))
    assert not (tmp_path / "resumed.json").exists()
    assert len(list((tmp_path / "checkpoints").glob("*/checkpoint-*"))) == 1
    monkeypatch.setattr(SealedCheckpoints, "_save_checkpoint", save)
    resumed_steps = counting_steps(monkeypatch)
    resumed = finetune(job(prepared, tmp_path), str(tmp_path / "resumed.json"))
    assert "resuming from" in capsys.readouterr().out
    assert len(resumed_steps) == whole_steps * 2 // 3  # the first of 3 epochs came from the checkpoint
    assert resumed == whole


def test_a_run_that_diverges_records_why_with_no_score_and_stops_at_the_first_epoch(prepared, tmp_path, monkeypatch):
    """At a rate of 1e30 the loss is nan from the first epoch: the run says so and scores nothing, rather than giving
    the scores of a classifier of nan weights, and its remaining epochs are not trained."""
    steps = counting_steps(monkeypatch)
    found = finetune(job(prepared, tmp_path, recipe={**RECIPE, "learning_rate": 1e30}, rate=1e30),
                     str(tmp_path / "diverged.json"))  # fmt: skip
    assert found.diverged == "training loss nan in epoch 1"
    assert found.validation == found.test == {"macro_f1": None, "accuracy": None}
    assert found.predictions is None and found.best_epoch is None
    assert found.classes_predicted == {"validation": None, "test": None}
    assert len(steps) == 48 // RECIPE["batch_size"]  # one epoch of 48 train examples, not 3
    assert read_run(str(tmp_path / "diverged.json")) == found
    assert not (tmp_path / "checkpoints").exists()


def test_outputs_that_are_not_finite_make_a_diverged_run(prepared, tmp_path, monkeypatch):
    import numpy as np

    predict = transformers.Trainer.predict

    def overflowing(self, *args, **kwargs):
        found = predict(self, *args, **kwargs)
        found.predictions[1, 0] = np.inf
        return found

    monkeypatch.setattr(transformers.Trainer, "predict", overflowing)
    found = finetune(job(prepared, tmp_path), str(tmp_path / "run.json"))
    assert found.diverged == "outputs not finite on 1 of 16 validation examples"
    assert found.test == {"macro_f1": None, "accuracy": None}


def test_no_run_folder_exists_before_the_first_checkpoint_and_a_finished_run_leaves_none(prepared, tmp_path,
                                                                                         monkeypatch):  # fmt: skip
    """A kill before the first save (kill -9 runs no cleanup) finds no folder of the run to leave behind; a finished
    run removes its folders up to checkpoints/finetune, where no other run's are, and keeps another run's checkpoint."""
    monkeypatch.chdir(tmp_path)
    Path("checkpoints/finetune/pairs/random/lr-0.005/seed-1/0123456789abcdef/checkpoint-6").mkdir(parents=True)
    others = sorted(Path("checkpoints").rglob("*"))
    seen, step = [], transformers.Trainer.training_step

    def looking(self, *args, **kwargs):
        seen.append(sorted(Path("checkpoints").rglob("*")))
        return step(self, *args, **kwargs)

    monkeypatch.setattr(transformers.Trainer, "training_step", looking)
    finetune(job(prepared, tmp_path, checkpoints="checkpoints/finetune/pairs/pretrained/lr-0.005/seed-1"), "run.json")
    assert seen[0] == others and sorted(Path("checkpoints").rglob("*")) == others


@pytest.mark.parametrize("relative", [True, False], ids=["under-checkpoints-finetune", "elsewhere"])
def test_a_finished_runs_folders_are_removed_up_to_checkpoints_finetune_and_no_further(tmp_path, monkeypatch, relative):
    monkeypatch.chdir(tmp_path)
    own = Path("checkpoints/finetune/pairs/pretrained/chosen/fold-2/seed-3")
    own = own if relative else tmp_path / "elsewhere" / own
    (own / "0123456789abcdef/checkpoint-12").mkdir(parents=True)
    remove_finished(own / "0123456789abcdef", own)
    left = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*"))
    parts = () if relative else own.relative_to(tmp_path).parts  # a path given elsewhere: only the run's own folder
    assert left == ([Path("checkpoints")] if relative else [Path(*parts[:index]) for index in range(1, len(parts))])


def test_random_init_has_the_architecture_and_not_the_weights(prepared, tmp_path):
    task = read_task_file(prepared[2] / TASK_FILE)
    pretrained = load_model(job(prepared, tmp_path), task)
    random = load_model(job(prepared, tmp_path, kind="random_init"), task)
    assert pretrained.config.to_diff_dict() == random.config.to_diff_dict()
    own, other = pretrained.bert.embeddings.word_embeddings.weight, random.bert.embeddings.word_embeddings.weight
    saved = transformers.AutoModelForMaskedLM.from_pretrained(prepared[1]).bert.embeddings.word_embeddings.weight
    assert torch.equal(own, saved) and not torch.equal(other, saved)
    assert pretrained.config.id2label == {0: "different", 1: "same"}


def test_a_regression_task_with_a_local_reference_model_runs_to_its_summary(prepared, tiny_data, tmp_path):
    """A regression task as the workflow runs it (tests/workflow/test_finetune.py runs the other problems): each
    model fine-tuned and probed, a reference model from a local folder among them, the baselines, the summary."""
    reference = save_tiny_model(tiny_data.tokenizer, tmp_path / "reference", the_bias=1.0)
    numbers = tmp_path / "numbers"
    rows = write_jsonl(tmp_path / "numbers.jsonl", number_rows(60))
    prepare_task(files_task(rows, format="jsonl", text_column="text", text_pair_column=None, label_column="score",
                            group_column=None, problem="regression"), str(numbers))  # fmt: skip
    runs, probes = [], []
    for kind, name, source in (("pretrained", "pretrained", prepared[1]), ("random_init", "random", prepared[1]),
                               ("reference", "other", reference)):  # fmt: skip
        runs.append(str(tmp_path / f"{name}.json"))
        found = finetune(job(prepared, tmp_path, kind, source, name=name, task_dir=str(numbers)), runs[-1])
        probes.append(str(tmp_path / f"{name}-probe.json"))
        probe_model(str(numbers), name, kind, source, 16, 8, [probes[-1]])
    assert found.kind == "reference" and found.source == reference
    assert set(found.test) == {"pearson", "spearman"}
    run_baselines(str(numbers), str(tmp_path / "baselines.json"))
    summary = summarized(numbers / TASK_FILE, runs, probes, [5e-3], [str(tmp_path / "baselines.json")],
                         str(tmp_path / "metrics.json"))  # fmt: skip
    assert summary["problem"] == "regression" and summary["labels"] is None
    assert summary["metrics"] == ["pearson", "spearman"]
    assert list(summary["models"]) == ["pretrained", "random", "other", "majority", "tfidf"]
    assert summary["models"]["other"]["kind"] == "reference"
    assert list(summary["linear_probe"]["models"]) == list(summary["models"])
    rows = dict(task_rows(task_metrics(**summary)))  # the report's, of one seed: the count in the singular
    assert rows["pretrained (1 seed)"] and not [row for row in rows.items() if "1 seeds" in " ".join(row)]


def test_a_reference_model_without_a_mask_token_is_refused_before_training(prepared, tmp_path):
    folder = tmp_path / "no-mask"
    shutil.copytree(prepared[1], folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**config, "mask_token": None}))
    with pytest.raises(DataError, match="its tokenizer has no mask_token"):
        finetune(job(prepared, tmp_path, kind="reference", name="other", model=str(folder)), str(tmp_path / "o.json"))
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "checkpoints").exists()


def test_a_reference_model_whose_tokenizer_has_no_fast_form_is_refused_by_name_before_training(prepared, tmp_path):
    """BertJapaneseTokenizer (with its basic word splitter: no extra package) exists only in Python: no word ids and no
    character offsets, which the tagging and question windows read."""
    folder = tmp_path / "slow"
    shutil.copytree(prepared[1], folder, ignore=shutil.ignore_patterns("tokenizer.json"))
    vocabulary = transformers.AutoTokenizer.from_pretrained(prepared[1]).get_vocab()
    (folder / "vocab.txt").write_text("".join(f"{token}\n" for token in sorted(vocabulary, key=vocabulary.get)))
    config = json.loads((folder / "tokenizer_config.json").read_text())
    slow = {"tokenizer_class": "BertJapaneseTokenizer", "word_tokenizer_type": "basic"}
    (folder / "tokenizer_config.json").write_text(json.dumps({**config, **slow}))
    said = r"finetune model 'other' \(.*slow\): its tokenizer \(BertJapaneseTokenizer\) has no fast form"
    with pytest.raises(DataError, match=said):
        finetune(job(prepared, tmp_path, kind="reference", name="other", model=str(folder)), str(tmp_path / "o.json"))
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "checkpoints").exists()


def test_a_reference_folder_without_tokenizer_files_or_with_too_few_positions_is_refused_before_training(
    prepared, tmp_path
):
    """AutoTokenizer would make a 5-token tokenizer of a folder of weights alone: every word unknown, the row silently
    meaningless. A model whose positions cannot hold the recipe's inputs would fail at its first batch."""
    bare = tmp_path / "weights-only"
    shutil.copytree(prepared[1], bare, ignore=shutil.ignore_patterns("tokenizer*", "vocab.txt", "special_tokens*"))
    with pytest.raises(
        DataError, match=r"finetune model 'other' '.*weights-only': the folder holds no tokenizer \(none"
    ):
        finetune(job(prepared, tmp_path, kind="reference", name="other", model=str(bare)), str(tmp_path / "o.json"))
    short = tmp_path / "short"
    tokenizer = transformers.AutoTokenizer.from_pretrained(prepared[1])
    dimensions = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64}
    config = transformers.BertConfig(vocab_size=len(tokenizer), max_position_embeddings=8, **dimensions)
    transformers.BertForMaskedLM(config).save_pretrained(short)
    tokenizer.save_pretrained(short)
    with pytest.raises(DataError, match="its inputs hold at most 8 positions, fewer than the recipe max_length 16"):
        finetune(job(prepared, tmp_path, kind="reference", name="other", model=str(short)), str(tmp_path / "o.json"))
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "checkpoints").exists()


def test_a_run_that_fails_before_its_first_checkpoint_leaves_no_run_folder(prepared, tmp_path, monkeypatch):
    def failing(*args, **kwargs):
        raise RuntimeError("the first step failed")

    monkeypatch.setattr("snakebert.finetune.train.build_trainer", failing)
    with pytest.raises(RuntimeError, match="the first step failed"):
        finetune(job(prepared, tmp_path), str(tmp_path / "o.json"))
    assert not list((tmp_path / "checkpoints").rglob("fingerprint.json")) and not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("free", [0, 40 * 1024], ids=["no-byte-free", "room-for-the-fingerprint-only"])
def test_a_full_disk_under_the_checkpoints_is_named_with_what_is_free(prepared, tmp_path, full_disk, free):
    """With no byte free the run's folder cannot be made (an OSError); with 40 KiB the first checkpoint's save fails
    inside the trainer (an error of the weights' writer, without an errno): both are named, with the free space."""
    os.truncate(full_disk / "filler", (full_disk / "filler").stat().st_size - free)
    checkpoints = full_disk / "checkpoints"
    with pytest.raises(DataError) as refused:
        finetune(job(prepared, tmp_path, checkpoints=str(checkpoints)), str(tmp_path / "o.json"))
    message = str(refused.value)
    assert message.startswith(f"{checkpoints}: no space left on device for the run's checkpoints (")
    assert message.endswith("free some space and rerun (a complete checkpoint is resumed from)")
    assert not (tmp_path / "o.json").exists()


def test_a_reference_model_that_cannot_be_loaded_says_what_was_tried(prepared, tmp_path):
    """scripts/finetune.py, offline from the start (no retries): exit 1, what was tried, no output."""
    out = tmp_path / "o.json"
    recipe = settings_file(RECIPE, tmp_path)
    arguments = ["--task-dir", str(prepared[2]), "--name", "other", "--kind", "reference", "--source", "someone/bert",
                 "--seed", "1", "--recipe", recipe, "--rate", "0.005", "--eval-batch-size", "8",
                 "--backend", "cpu", "--checkpoints", str(tmp_path / "checkpoints"), "--out", str(out)]  # fmt: skip
    done = subprocess.run([sys.executable, str(REPO / "scripts/finetune.py"), *arguments], cwd=tmp_path,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"}, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 1
    assert "error: finetune model 'other' 'someone/bert' could not be loaded: tried a folder" in done.stderr
    assert "then the Hub id 'someone/bert'" in done.stderr and not out.exists()


def test_every_fine_tuning_step_has_the_same_shapes(prepared, tmp_path):
    """One graph on Gaudi: inputs padded to max_length, whole batches, whatever the texts' lengths."""
    root, model_dir, task_dir = prepared
    run = job(prepared, tmp_path, recipe={**RECIPE, "max_length": 32})
    task, tables = read_task_dir(str(task_dir))
    tokenizer = load_tokenizer(run.source, run.name)
    splits = {split: EncodedSplit(table, tokenizer, 32, False, 8) for split, table in tables.items()}
    trainer = build_trainer(run, task, load_model(run, task), splits, tmp_path / "run")
    batches = list(trainer.get_train_dataloader())
    lengths = {int(batch["attention_mask"].sum()) for batch in batches}
    assert len(lengths) > 1 and all(batch["input_ids"].shape == (8, 32) for batch in batches)
    assert not changed_ops([training_step_shapes(trainer, batch) for batch in batches[:3]])
    padded = EncodedSplit(tables["validation"], tokenizer, 32, False, 12)
    assert (padded.count, len(padded)) == (16, 24)
    assert all(torch.equal(padded[20][name], padded[0][name]) for name in padded[0])


def test_a_batch_of_texts_cut_at_max_length_trains_through_the_same_graph_as_a_padded_one(prepared, tmp_path):
    """transformers builds no attention mask for a batch without padding (a branch on the data): every input keeps
    its last position for padding, so a batch whose texts all reach max_length has the same shapes as any other."""
    run = job(prepared, tmp_path, recipe={**RECIPE, "max_length": 16})
    task, tables = read_task_dir(run.task_dir)
    tokenizer = load_tokenizer(run.source, run.name)
    long_texts, short_texts = [" ".join(WORDS[start : start + 30]) for start in range(8)], ["the sea"] * 8
    table = pa.table({"text": long_texts + short_texts, "label": [0, 1] * 8, "group": [str(row) for row in range(16)]})
    split = EncodedSplit(table, tokenizer, 16, False)
    assert (split.inputs["attention_mask"][:, -1] == 0).all() and (split.inputs["attention_mask"][:8, -2] == 1).all()
    trainer = build_trainer(run, task, load_model(run, task), {**dict.fromkeys(tables, split)}, tmp_path / "run")
    batches = [{name: torch.stack([split[row][name] for row in rows]) for name in split[0]}
               for rows in (range(8), range(8, 16))]  # fmt: skip
    assert not changed_ops([training_step_shapes(trainer, batch) for batch in batches])


def test_a_model_whose_tokenizer_is_not_its_own_is_refused_by_its_job(tiny_data, tmp_path):
    """A compared model from the Hub is only checked by its job: a tokenizer holding far fewer ids than the model's
    embeddings (one of another model, or of a few tokens: every word unknown) is refused naming the model."""
    folder = Path(save_tiny_model(tiny_data.tokenizer, tmp_path / "other"))
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "vocab_size": 30522}))
    refused = r"finetune model 'other' \(.*other\): its tokenizer holds 200 ids, fewer than half the 30522 rows"
    with pytest.raises(DataError, match=refused + r" of the model's embeddings \(vocab_size\): it is not the model's"):
        load_tokenizer(str(folder), "other")
