"""The files pretraining's jobs hand on (training_metrics.json, the evaluation's metrics, the fill-mask probes'
results and the calibration's projection): each has one module, its path, its typed view, its writer and its reader.
The view writes back the very bytes it was read from; an old or foreign file is refused naming the file and the key;
and no other module of the workflow spells the file's path or a key of it. The log history (log_history.json), whose
entries hold keys that vary, has its module too, with its name, writer and reader, and no view."""

import copy
import json
import re
from dataclasses import fields
from pathlib import Path

import pytest
from helpers import EVAL_METRICS, TRAINING_METRICS, spelled_elsewhere

from snakebert.errors import DataError
from snakebert.files.json_views import as_json
from snakebert.training import calibration_file, eval_metrics, fill_mask_results, log_history, training_metrics

NOT_TRAINED_HERE = {"phase": 1, "block_size": 8, "first_step": 1, "last_step": 40, "global_batch_size": None,
                    "predictions_per_block": 1, "peak_learning_rate": 0.001, "trained_here": False}  # fmt: skip
TRAINED = {**TRAINING_METRICS, "phases": [NOT_TRAINED_HERE, TRAINING_METRICS["phases"][1]], "resumed_from": "ckpt-40"}
PROBES = {
    "top_k": 5,
    "probes": [
        {"prompt": "the [MASK] of the year .", "answers": ["end"],
         "predictions": [{"token": "the", "probability": 0.5}, {"token": "end", "probability": 0.25}],
         "hit_top1": False, "hit_top5": True},
        {"prompt": "[MASK] must rest .", "answers": [], "predictions": [{"token": "the", "probability": 0.75}],
         "hit_top1": None, "hit_top5": None},
    ],
    "answered": 1,
    "hit_rate_top1": 0.0,
    "hit_rate_top5": 1.0,
    "distinct_top1": 1,
    "most_common_top1": {"token": "the", "prompts": 2},
}  # fmt: skip
BURST = {"phase": 1, "block_size": 8, "backend": "cpu", "world_size": 1, "global_batch_size": 16, "warmup_steps": 3,
         "measured_steps": 12, "samples_per_second": 160.0, "seconds_per_step": 0.1, "warmup_seconds": 3.0,
         "seconds_per_evaluation": 0.5, "seconds_per_checkpoint": 0.25, "max_steps": 40, "evaluations": 4,
         "checkpoints": 2, "nodes": 1, "startup_seconds": 5.0, "projected_train_seconds": 7.2,
         "projected_wall_seconds": 12.2, "projected_wall_time": "0:00:12", "price_per_node_hour": 2,
         "projected_node_hours": 0.0034, "projected_cost": 0.0068}  # fmt: skip
SECOND_BURST = {**BURST, "phase": 2, "block_size": 16, "global_batch_size": 8, "max_steps": 20}
CALIBRATION = {**SECOND_BURST, "max_steps": 60, "phases": [BURST, SECOND_BURST]}


def in_model_folder(folder: Path) -> tuple[str, Path]:
    return str(folder), training_metrics.metrics_path(folder)


def named(name: str):
    def located(folder: Path) -> tuple[str, Path]:
        return str(folder / name), folder / name

    return located


# Each file: its module, its typed view, a file as its job writes it, where it lies in a folder (what its reader and
# writer are given, and the file's path), its reader and writer, and what its refusal calls it.
FILES = {
    "training metrics": (
        training_metrics, training_metrics.TrainingMetrics, TRAINED, in_model_folder,
        training_metrics.read_training_metrics, training_metrics.write_training_metrics, "training metrics file",
    ),
    "evaluation metrics": (
        eval_metrics, eval_metrics.EvalMetrics, EVAL_METRICS, named("metrics.json"),
        eval_metrics.read_eval_metrics, eval_metrics.write_eval_metrics, "evaluation metrics file",
    ),
    "fill-mask probes": (
        fill_mask_results, fill_mask_results.FillMaskResults, PROBES, named("probes.json"),
        fill_mask_results.read_fill_mask_results, fill_mask_results.write_fill_mask_results, "probes file",
    ),
    "calibration": (
        calibration_file, calibration_file.Calibration, CALIBRATION, named("calibration.json"),
        calibration_file.read_calibration, calibration_file.write_calibration, "calibration",
    ),
}  # fmt: skip

# Keys of these files that legitimately appear as strings elsewhere, each with where and why: another file's key, a
# config key, a library's own name, a key of the training log, or a label of the model card.
SKIPPED = {
    "backend": "a config key (pretrain.backend, finetune.backend), and the machine record's",
    "world_size": "the checkpoint fingerprint's key (training/checkpoints.py)",
    "steps": "a config key (calibrate.steps), and a fact of the model card (cards/model.py)",
    "train_runtime": "transformers' own metric of a train() result, which pretrain.py reads",
    "train_samples_per_second": "transformers' own metric of a train() result, which pretrain.py reads",
    "phases": "a config key (pretrain.phases)",
    "segments": "the checkpoint's run record holds the same list under that key (training/checkpoints.py)",
    "init_from": "a config key (model.init_from, training/base_model.py's INIT_FROM)",
    "history": "a fact of the model card (cards/model.py)",
    "validation_blocks": "a key of the manifest's split (data/manifest.py), and of the data set card",
    "perplexity": "the Hub model index's metric type of that name (cards/model.py)",
    "machine": "a key of the fine-tuning results (finetune/)",
    "probes": "a config key (evaluate.probes), and the name of the rules' probe inputs",
    "phase": "a key of the training log's lines (training/trainers.py), and a pretrain.lr_schedule_scope",
    "block_size": "a config key (data.block_size, a phase's), and a key of the training log's lines",
    "warmup_steps": "a config key (pretrain.warmup_steps, calibrate.warmup_steps)",
    "samples_per_second": "a key of the training log's lines (training/trainers.py)",
    "max_steps": "a config key (pretrain.max_steps)",
    "checkpoints": "a folder the workflow writes (data/shards.py), and a params key of the training rules",
    "nodes": "a rule resource (launch/plan.py)",
    "price_per_node_hour": "a config key (calibrate.price_per_node_hour)",
}
PATHS = {
    training_metrics: (training_metrics.MODEL_FOLDER, training_metrics.FILE_NAME),
    eval_metrics: (eval_metrics.EVAL_METRICS,),
    fill_mask_results: (fill_mask_results.FILL_MASK_RESULTS,),
    calibration_file: (calibration_file.CALIBRATION_FILE,),
    log_history: (log_history.FILE_NAME,),
}


@pytest.mark.parametrize("name", FILES)
def test_a_file_read_and_written_again_is_the_same_bytes(name, tmp_path):
    _, view, written, locate, read, write, _ = FILES[name]
    first, path = locate(tmp_path / "first")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(written, indent=1) + "\n")  # as the job wrote it before the typed view
    found = read(first)
    assert isinstance(found, view) and as_json(found) == written
    again, again_path = locate(tmp_path / "again")
    write(again, found)
    assert again_path.read_bytes() == path.read_bytes()


def test_a_phase_this_job_did_not_train_has_no_timings():
    phases = training_metrics.TrainingMetrics.from_json(TRAINED).phases
    assert phases[0].train_runtime is None and phases[1].train_runtime == 1.5
    assert "train_runtime" not in as_json(phases[0]) and "train_runtime" in as_json(phases[1])


def damaged(written: dict, key: str, value=None) -> dict:
    """`written` with `key` (a path of keys and indexes, joined by dots) removed, or set to `value`."""
    copied = copy.deepcopy(written)
    *parents, last = [int(part) if part.isdigit() else part for part in key.split(".")]
    holder = copied
    for part in parents:
        holder = holder[part]
    if value is None:
        del holder[last]
    else:
        holder[last] = value
    return copied


# What makes a refused file anew, where a rerun does not: the report reads the calibration without waiting for it.
REMEDIES = {"calibration": "`snakemake calibrate` makes it anew, or delete it"}


@pytest.mark.parametrize(
    ("name", "key", "value", "said"),
    [
        ("training metrics", "steps", None, "KeyError('steps')"),  # an old file
        ("training metrics", "init_from", None, "KeyError('init_from')"),  # written before continued runs
        ("training metrics", "phases.1.first_step", None, "KeyError('first_step')"),
        ("training metrics", "steps", 60.0, "its 'steps' is 60.0, not an integer"),  # a hand edit
        ("training metrics", "phases", 2, "TypeError(\"'int' object is not iterable\")"),
        ("evaluation metrics", "machine", None, "KeyError('machine')"),
        ("evaluation metrics", "masked_tokens", True, "its 'masked_tokens' is True, not an integer"),
        ("fill-mask probes", "most_common_top1.prompts", None, "KeyError('prompts')"),
        ("fill-mask probes", "probes.0.predictions.1.probability", None, "KeyError('probability')"),
        ("fill-mask probes", "top_k", "5", "its 'top_k' is '5', not an integer"),
        ("calibration", "phases.1.seconds_per_step", None, "KeyError('seconds_per_step')"),
        ("calibration", "phases", None, "KeyError('phases')"),  # written before phases were calibrated
        ("calibration", "world_size", 1.0, "its 'world_size' is 1.0, not an integer"),
    ],
)
def test_an_old_or_foreign_file_is_refused_naming_the_file_and_the_key(name, key, value, said, tmp_path):
    _, _, written, locate, read, _, what = FILES[name]
    given, path = locate(tmp_path)
    path.write_text(json.dumps(damaged(written, key, value)))
    with pytest.raises(DataError) as refused:
        read(given)
    assert str(refused.value).startswith(f"{path}: not a {what} of this workflow (")
    assert said in str(refused.value) and REMEDIES.get(name, "rerun to rebuild it") in str(refused.value)


def test_a_file_that_is_not_json_is_named_as_unreadable(tmp_path):
    path = tmp_path / "metrics.json"
    path.write_text('{"mlm_loss": 4.9, "perpl')
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}: not a readable evaluation metrics file \("):
        eval_metrics.read_eval_metrics(str(path))


@pytest.mark.parametrize("name", FILES)
def test_no_other_module_spells_a_key_of_the_file(name):
    module, view = FILES[name][:2]
    keys = [found.name for found in fields(view) if found.name not in SKIPPED]
    assert len(keys) >= 5, keys  # the skips leave most keys checked
    assert spelled_elsewhere(module, keys) == {}


def test_each_skipped_key_is_a_key_of_one_of_the_files():
    keys = {found.name for _, view, *_ in FILES.values() for found in fields(view)}
    assert set(SKIPPED) <= keys


@pytest.mark.parametrize("module", PATHS, ids=lambda module: module.__name__)
def test_no_other_module_spells_the_files_path(module):
    assert spelled_elsewhere(module, [re.escape(path) for path in PATHS[module]]) == {}


HISTORY = [
    {"loss": 5.1, "grad_norm": 1.25, "learning_rate": 0.001, "epoch": 0.5, "phase": 1, "step": 10},
    {"eval_loss": 5.0, "eval_runtime": 0.5, "epoch": 0.5, "step": 10},
    {"train_runtime": 1.5, "train_loss": 5.05, "epoch": 1.0, "step": 20},
]


def test_the_log_history_is_written_as_the_trainer_logged_it_and_read_back_whole(tmp_path):
    log_history.write_log_history(tmp_path, HISTORY)
    assert (tmp_path / "log_history.json").read_text() == json.dumps(HISTORY, indent=1) + "\n"
    assert log_history.read_log_history(tmp_path) == HISTORY


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ({"step": 10}, "TypeError('a list of logged steps expected, found dict')"),
        ([HISTORY[0], {"loss": 5.0}], """its entry 1, {"loss": 5.0}, has no integer step"""),
        ([{"loss": 5.0, "step": 10.0}], "its entry 0,"),  # a hand edit
        ([{"loss": 5.0, "step": True}], "its entry 0,"),
        ([[10, 5.0]], "its entry 0, [10, 5.0], has no integer step"),
    ],
)
def test_a_log_history_that_is_not_a_list_of_logged_steps_is_refused_naming_the_entry(written, said, tmp_path):
    path = tmp_path / "log_history.json"
    path.write_text(json.dumps(written))
    with pytest.raises(DataError) as refused:
        log_history.read_log_history(tmp_path)
    assert str(refused.value).startswith(f"{path}: not a log history of this workflow (")
    assert said in str(refused.value) and "rerun to rebuild it" in str(refused.value)
