"""Unit tests of the pieces the workflow tests reach only as a whole: checkpoint selection, the split indices and
the validation ranges, and the code digest that reruns edited code."""

import json

from blocks import split_indices
from build_manifest import validation_ranges
from checkpoints import complete_checkpoints, fingerprint, resume_point, run_directory
from code_digest import code_digest, local_imports

SETTINGS = {"training": {"learning_rate": 0.001, "max_steps": 100}, "world_size": 1}


def checkpoint(folder, step: int, complete: bool = True):
    path = folder / f"checkpoint-{step}"
    path.mkdir()
    if complete:
        (path / "trainer_state.json").write_text("{}")
    return path


def test_resume_takes_the_newest_complete_checkpoint_by_step_number(tmp_path):
    own = run_directory(str(tmp_path), SETTINGS)
    assert own.name == fingerprint(SETTINGS) and json.loads((own / "fingerprint.json").read_text()) == SETTINGS
    for step in (50, 100, 1000):
        checkpoint(own, step)
    checkpoint(own, 1050, complete=False)  # killed while saving: no trainer state yet
    assert [path.name for path in complete_checkpoints(own)] == ["checkpoint-50", "checkpoint-100", "checkpoint-1000"]
    said = []
    assert resume_point(str(tmp_path), SETTINGS, said.append) == str(own / "checkpoint-1000")
    assert said == [f"resuming from {own / 'checkpoint-1000'} (step 1000)"]


def test_checkpoints_of_other_settings_are_never_used_and_the_log_names_what_differs(tmp_path):
    other = {**SETTINGS, "training": {"learning_rate": 0.002, "max_steps": 100}}
    checkpoint(run_directory(str(tmp_path), other), 100)
    said = []
    assert resume_point(str(tmp_path), SETTINGS, said.append) is None
    assert said[0].endswith("it was trained with other settings (training.learning_rate)")
    assert said[-1].startswith("no checkpoint to resume from") and fingerprint(SETTINGS) in said[-1]


def test_split_indices_number_blocks_across_shards_and_hold_out_the_ranges():
    manifest = {
        "shards": [{"blocks": 5}, {"blocks": 0}, {"blocks": 4}],
        "split": {"validation": [{"shard": 0, "start": 1, "stop": 3}, {"shard": 2, "start": 3, "stop": 4}]},
    }
    assert split_indices(manifest, "validation").tolist() == [1, 2, 8]
    assert split_indices(manifest, "train").tolist() == [0, 3, 4, 5, 6, 7]


def test_validation_ranges_are_seeded_contiguous_and_inside_their_shard():
    ranges = validation_ranges([100, 7, 1000], 0.1, seed=34)
    assert [(run["shard"], run["stop"] - run["start"]) for run in ranges] == [(0, 10), (1, 1), (2, 100)]
    assert all(run["start"] >= 0 and run["stop"] <= count for run, count in zip(ranges, [100, 7, 1000], strict=True))
    assert validation_ranges([100, 7, 1000], 0.1, seed=34) == ranges
    assert validation_ranges([100, 7, 1000], 0.1, seed=35) != ranges
    assert validation_ranges([3], 0.1, seed=34) == []  # round(0.3) = 0: the manifest job refuses an empty split


def test_code_digest_follows_imports_transitively_and_changes_only_for_importers(tmp_path):
    (tmp_path / "base.py").write_text("VALUE = 1\n")
    (tmp_path / "middle.py").write_text("from base import VALUE\nimport json\n")
    (tmp_path / "job_a.py").write_text("import middle\n")
    (tmp_path / "job_b.py").write_text("from os import path\n")
    assert local_imports(tmp_path / "middle.py") == {tmp_path / "base.py"}  # json is not the project's
    before = {name: code_digest(tmp_path / name) for name in ("job_a.py", "job_b.py")}
    (tmp_path / "base.py").write_text("VALUE = 2\n")
    after = {name: code_digest(tmp_path / name) for name in ("job_a.py", "job_b.py")}
    assert after["job_a.py"] != before["job_a.py"]  # two imports away
    assert after["job_b.py"] == before["job_b.py"]
