"""The calibration's projection: its arithmetic from the burst's marks, and how the report sets it against the run."""

from dataclasses import replace

import pytest
from helpers import EVAL_METRICS, TRAINING_METRICS

from snakebert.errors import DataError
from snakebert.files.json_files import write_json
from snakebert.report.summary import calibration_rows, report_summary, timing_rows
from snakebert.training.calibration import combined, project
from snakebert.training.training_metrics import TrainingMetrics, write_training_metrics

# A burst of 10 warm-up and 30 timed steps: the job started at 5 s, the trainer at 10 s.
MARKS = {"train_begin": 10.0, "step_10": 12.0, "evaluated_10": 13.0, "step_40": 16.0, "evaluated_40": 16.5}
MARKS["saved"] = 17.0
BURST = {"warmup_steps": 10, "steps": 30}
SETTINGS = {"max_steps": 1000, "eval_steps": 250, "save_steps": 500}
LAUNCH = {"phase": 1, "block_size": 512, "backend": "hpu", "world_size": 32, "global_batch_size": 256}


def test_the_projection_adds_warm_up_steps_evaluations_and_checkpoints():
    projection = project(MARKS, 5.0, BURST, SETTINGS, nodes=4, price=13.0, **LAUNCH)
    assert projection.seconds_per_step == pytest.approx(0.1)  # 30 steps from the first evaluation's end
    assert projection.samples_per_second == pytest.approx(2560)
    assert (projection.seconds_per_evaluation, projection.seconds_per_checkpoint) == (0.5, 0.5)
    assert (projection.evaluations, projection.checkpoints) == (4, 2)
    # warm-up 3 s (with the first evaluation) + 990 steps x 0.1 s + 3 more evaluations + 2 checkpoints
    assert projection.projected_train_seconds == pytest.approx(3 + 99 + 1.5 + 1.0)
    assert projection.projected_wall_seconds == pytest.approx(5 + 104.5)
    assert projection.projected_wall_time == "0:01:50"
    assert projection.projected_node_hours == pytest.approx(4 * 109.5 / 3600)
    assert projection.projected_cost == pytest.approx(13.0 * 4 * 109.5 / 3600)
    assert project(MARKS, 5.0, BURST, SETTINGS, 4, None, **LAUNCH).projected_cost is None


TRAINING = replace(TrainingMetrics.from_json(TRAINING_METRICS), backend="hpu", world_size=32, global_batch_size=256,
                   steps=1000, train_runtime=125.0)  # fmt: skip
CALIBRATION = combined([project(MARKS, 5.0, BURST, SETTINGS, 4, 13.0, **LAUNCH)], 4, 13.0)  # a run of one phase


def test_the_report_sets_the_projection_against_the_run_it_projected():
    rows = dict(calibration_rows(CALIBRATION, TRAINING))
    assert rows["run time: projected / actual"] == "0:01:44 / 0:02:05 (1.20x the projection)"
    assert rows["calibrated throughput"] == "2,560.0 samples/s"
    assert rows["projected cost"] == "1.58 (0.12 node-hours at 13.0 per node-hour)"
    assert "note" in dict(calibration_rows(CALIBRATION, replace(TRAINING, resumed_from="checkpoint-500")))
    other = dict(calibration_rows(replace(CALIBRATION, world_size=8), TRAINING))
    assert other == {"calibration": "of another launch (hpu, 8 ranks, global batch 256, 1,000 steps): not compared"}
    assert calibration_rows(None, TRAINING) == []
    short = replace(CALIBRATION, max_steps=60, projected_train_seconds=0.55)
    assert (
        dict(calibration_rows(short, replace(TRAINING, steps=60, train_runtime=0.43)))["run time: projected / actual"]
        == "0.6 s / 0.4 s (0.78x the projection)"
    )


def test_a_damaged_calibration_is_named_by_the_report(tmp_path):
    write_training_metrics(tmp_path / "model", TRAINING)
    write_json(tmp_path / "metrics.json", EVAL_METRICS)
    (tmp_path / "calibration.json").write_text('{"samples_per_second": ')
    with pytest.raises(DataError, match=r"calibration.json: not a readable calibration \(.*delete it and rerun"):
        report_summary("manifest.json", str(tmp_path / "model"), str(tmp_path / "metrics.json"), str(tmp_path / "out"),
                       str(tmp_path / "calibration.json"))  # fmt: skip
    assert not (tmp_path / "out").exists()


def test_a_run_saved_again_without_timings_is_reported_unmeasured_not_compared():
    """A finished run saved again from its last checkpoint, without the model folder it kept (training/finished_run.py)
    has no timings: the report says so instead of dividing by them."""
    unmeasured = replace(TRAINING, train_runtime=None, train_samples_per_second=None)
    assert dict(calibration_rows(CALIBRATION, unmeasured)) == {"calibrated throughput": "2,560.0 samples/s"}
    assert timing_rows(unmeasured) == [
        ("run time, throughput", "not measured: the job that saved the model found the run finished")
    ]
