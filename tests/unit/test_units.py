"""Unit tests of the pieces the workflow tests reach only as a whole: the launch's world size, the split indices
and the validation ranges, and the code digest that reruns edited code."""

import signal
import subprocess
import sys

import pytest
from helpers import wait_all

from snakebert.code_digest import code_digest, local_imports
from snakebert.data.manifest import validation_ranges
from snakebert.errors import DataError
from snakebert.training.block_dataset import split_indices
from snakebert.training.pretrain import check_world_size


def test_a_launch_with_other_ranks_than_planned_is_refused(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "8")
    assert check_world_size("cpu", 8) == check_world_size("cpu", None) == 8
    with pytest.raises(DataError, match="the cuda launcher started 8 ranks, the workflow planned 16"):
        check_world_size("cuda", 16)


def test_split_indices_number_blocks_across_shards_and_hold_out_the_ranges():
    manifest = {
        "block_size": 4,
        "shards": [{"blocks": 5}, {"blocks": 0}, {"blocks": 4}],
        "split": {"validation": [{"shard": 0, "start": 1, "stop": 3}, {"shard": 2, "start": 3, "stop": 4}]},
        "packings": [  # the same tokens (20, 0 and 16) in blocks of 2 and of 3
            {"block_size": 2, "shards": [{"blocks": 10}, {"blocks": 0}, {"blocks": 8}]},
            {"block_size": 3, "shards": [{"blocks": 6}, {"blocks": 0}, {"blocks": 5}]},
        ],
    }
    assert split_indices(manifest, "validation").tolist() == [1, 2, 8]
    assert split_indices(manifest, "train").tolist() == [0, 3, 4, 5, 6, 7]
    # validation holds tokens 4-11 of shard 0 and 12-15 of shard 2: a phase trains on no block that overlaps them
    assert split_indices(manifest, "validation", 2).tolist() == [2, 3, 4, 5, 16, 17]
    assert split_indices(manifest, "validation", 3).tolist() == [1, 2, 3, 10]
    assert split_indices(manifest, "train", 3).tolist() == [0, 4, 5, 6, 7, 8, 9]


def test_validation_ranges_are_seeded_contiguous_and_inside_their_shard():
    ranges = validation_ranges([100, 7, 1000], 0.1, seed=34)
    assert [(run["shard"], run["stop"] - run["start"]) for run in ranges] == [(0, 10), (1, 1), (2, 100)]
    assert all(run["start"] >= 0 and run["stop"] <= count for run, count in zip(ranges, [100, 7, 1000], strict=True))
    assert validation_ranges([100, 7, 1000], 0.1, seed=34) == ranges
    assert validation_ranges([100, 7, 1000], 0.1, seed=35) != ranges
    # round(0.3) = 0 in every shard: one block of the largest shard, whenever there are two blocks or more
    assert validation_ranges([3], 0.1, seed=34) == [{"shard": 0, "start": 0, "stop": 1}]
    assert [run["shard"] for run in validation_ranges([2, 4, 4], 0.01, seed=34)] == [1]
    assert validation_ranges([1], 0.5, seed=34) == validation_ranges([1, 0], 0.1, seed=34) == []


def test_code_digest_follows_imports_transitively_and_changes_only_for_importers(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "base.py").write_text("VALUE = 1\n")
    (package / "sub" / "middle.py").write_text("from ..base import VALUE\nimport json\n")
    (package / "sub" / "other.py").write_text("from . import middle\n")
    (tmp_path / "job_a.py").write_text("from pkg.sub.other import middle\n")
    (tmp_path / "job_b.py").write_text("from os import path\nimport pkg.sub\n")
    assert local_imports(package / "sub" / "middle.py", tmp_path) == {package / "__init__.py", package / "base.py"}
    assert package / "sub" / "middle.py" in local_imports(package / "sub" / "other.py", tmp_path)  # `from . import`
    before = {name: code_digest(tmp_path / name, tmp_path) for name in ("job_a.py", "job_b.py")}
    (package / "base.py").write_text("VALUE = 2\n")
    after = {name: code_digest(tmp_path / name, tmp_path) for name in ("job_a.py", "job_b.py")}
    assert after["job_a.py"] != before["job_a.py"]  # three imports away, two of them relative
    assert after["job_b.py"] == before["job_b.py"]
    (package / "sub" / "__init__.py").write_text("# a package's __init__ runs on import\n")
    assert code_digest(tmp_path / "job_b.py", tmp_path) != after["job_b.py"]


def test_a_failed_process_ends_the_wait_for_its_peers_at_once():
    codes = ("raise SystemExit(3)", "input()")
    peers = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE) for code in codes]
    assert wait_all(peers, timeout=120) == [3, -signal.SIGKILL]  # the second would wait for input for ever
