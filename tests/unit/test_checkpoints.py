"""Checkpoints: which one a run resumes from, when one is complete (every rank's files written, then the marker),
which are kept, the segments a run took, and the deadline of a SLURM job."""

import json
import signal

import pytest
from test_static_shapes import tiny_trainer

from snakebert.errors import DataError
from snakebert.report.summary import segment_steps
from snakebert.training import stop_request
from snakebert.training.checkpoints import (
    COMPLETE_FILE,
    Segment,
    complete_checkpoints,
    fingerprint,
    resume_point,
    rotate,
    run_directory,
    seal,
)
from snakebert.training.pretrain import segment_line
from snakebert.training.stop_request import DEADLINE, Deadline, StopOnRequest, job_end_time, stopped

SETTINGS = {"training": {"learning_rate": 0.001, "max_steps": 100}, "world_size": 1}


def checkpoint(folder, step: int, complete: bool = True):
    path = folder / f"checkpoint-{step}"
    path.mkdir()
    (path / "trainer_state.json").write_text("{}")  # the trainer's files can all be there before the save is done
    if complete:
        (path / COMPLETE_FILE).write_text("{}")
    return path


def test_resume_takes_the_newest_complete_checkpoint_by_step_number(tmp_path):
    own = run_directory(str(tmp_path), SETTINGS)
    assert own.name == fingerprint(SETTINGS) and json.loads((own / "fingerprint.json").read_text()) == SETTINGS
    for step in (50, 100, 1000):
        checkpoint(own, step)
    checkpoint(own, 1050, complete=False)  # killed while saving: another rank's files or the flush not done
    assert [path.name for path in complete_checkpoints(own)] == ["checkpoint-50", "checkpoint-100", "checkpoint-1000"]
    said = []
    assert resume_point(str(tmp_path), SETTINGS, said.append) == str(own / "checkpoint-1000")
    assert said == [
        f"not resuming from {own / 'checkpoint-1050'}: its save did not finish (it has no {COMPLETE_FILE})",
        f"resuming from {own / 'checkpoint-1000'} (step 1000)",
    ]


def test_checkpoints_of_other_settings_are_never_used_and_the_log_names_what_differs(tmp_path):
    other = {**SETTINGS, "training": {"learning_rate": 0.002, "max_steps": 100}}
    checkpoint(run_directory(str(tmp_path), other), 100)
    said = []
    assert resume_point(str(tmp_path), SETTINGS, said.append) is None
    assert said[0].endswith("it was trained with other settings (training.learning_rate)")
    assert said[-1].startswith("no checkpoint to resume from") and fingerprint(SETTINGS) in said[-1]


def test_a_run_that_differs_only_in_world_size_is_refused_not_started_over(tmp_path):
    earlier = run_directory(str(tmp_path), {**SETTINGS, "world_size": 16})
    checkpoint(earlier, 400)
    doubled = {**SETTINGS, "world_size": 32}
    with pytest.raises(DataError, match=rf"{earlier} holds this run up to step 400 at world size 16.* has 32 ranks"):
        resume_point(str(tmp_path), doubled, print)
    checkpoint(run_directory(str(tmp_path), doubled), 100)  # once this world size has its own checkpoints, it resumes
    assert resume_point(str(tmp_path), doubled, print).endswith("checkpoint-100")


def test_seal_writes_the_marker_last_and_rotate_keeps_the_newest_complete_and_a_save_in_progress(tmp_path):
    for step in (10, 20, 30):
        checkpoint(tmp_path, step, complete=False)
        (tmp_path / f"checkpoint-{step}" / "model.safetensors").write_bytes(b"weights")
        seal(tmp_path / f"checkpoint-{step}", {"step": step})
    assert json.loads((tmp_path / "checkpoint-30" / COMPLETE_FILE).read_text()) == {"step": 30}
    assert not list(tmp_path.glob("*/.*.tmp"))
    checkpoint(tmp_path, 25, complete=False)  # a save that died, older than the newest complete one
    checkpoint(tmp_path, 40, complete=False)  # a save in progress
    rotate(tmp_path, keep=2)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["checkpoint-20", "checkpoint-30", "checkpoint-40"]


def test_a_segment_continues_the_record_of_the_checkpoint_it_resumes(tmp_path):
    assert Segment.resuming(None) == Segment(1, [], None)
    path = checkpoint(tmp_path, 40)
    record = {"save_seconds": 2.5, "segments": [{"first_step": 1, "last_step": 40}]}
    (path / COMPLETE_FILE).write_text(json.dumps(record))
    segment = Segment.resuming(str(path))
    assert (segment.first_step, segment.save_seconds) == (41, 2.5)
    assert segment.segments(90) == [{"first_step": 1, "last_step": 40}, {"first_step": 41, "last_step": 90}]


def test_the_deadline_leaves_the_margin_a_step_and_a_save(monkeypatch):
    now = 1_000_000.0
    monkeypatch.setattr(stop_request.time, "time", lambda: now)
    segment = Segment(save_seconds=30.0)
    deadline = Deadline("15m", now + 3600, segment)
    assert deadline.margin == 900
    assert not deadline.reached(step_seconds=10)
    now += 3600 - 900 - 30 - 10  # exactly the margin, one step and one save left
    assert deadline.reached(step_seconds=10) and not deadline.reached(step_seconds=9)
    assert not Deadline(None, now + 60, segment).reached(10**6)  # no margin set: no deadline
    assert not Deadline("15m", None, segment).reached(10**6)  # no end time: no deadline
    with pytest.raises(DataError, match="pretrain.stop_before_deadline is 2h, and this job ends in 60.0 minutes"):
        Deadline("2h", now + 3600, segment)


def test_the_end_time_of_a_job_is_slurms_and_none_outside_a_job():
    assert job_end_time({"SLURM_JOB_END_TIME": "1767225600", "SLURM_JOB_ID": "7"}) == 1767225600.0
    assert job_end_time({}) is None


def test_a_deadline_stop_says_so_in_its_line():
    stop = StopOnRequest(stop_request.StopRequest(), Deadline(None, None, Segment()))
    stop.stopped_at, stop.signal = 120, DEADLINE
    assert str(stopped(stop, "ck")).startswith("stopped on request (the job's deadline) at step 120: checkpoint saved")
    stop.signal = signal.SIGUSR1
    assert "(SIGUSR1)" in str(stopped(stop, "ck"))


def test_the_save_time_a_checkpoint_records_is_the_one_the_deadline_counts(tiny_data, tmp_path):
    trainer = tiny_trainer(tiny_data, tmp_path)
    trainer.args.max_steps = trainer.args.save_steps = 2  # one save, at the end
    trainer.train()
    [saved] = complete_checkpoints(tmp_path)
    assert saved.name == "checkpoint-2"
    recorded = json.loads((saved / COMPLETE_FILE).read_text())["save_seconds"]
    assert recorded > 0 and trainer.segment.save_seconds == trainer.save_seconds == recorded


def test_the_log_and_the_report_name_the_segments_steps_alike_the_report_with_thousands_separated():
    segment = Segment(1201, [{"first_step": 1, "last_step": 1200}])
    line = "segment 2 of the run: steps 1201-3000 (earlier segments trained steps 1-1200)"
    assert segment_line(segment, 3000, Deadline(None, None, segment)) == line
    assert segment_steps(segment.segments(3000)) == "2: 1-1,200, 1,201-3,000"
    assert segment_line(Segment(), 60, Deadline(None, None, Segment())) == "segment 1 of the run: steps 1-60"
