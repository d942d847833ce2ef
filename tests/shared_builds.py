"""Pipelines built once for the whole test run and copied by the tests that start from them, instead of each test
building its own: the data half of the tiny training config, and the whole tiny pipeline.

Under pytest-xdist each worker is a process of its own; the first to need a build makes it in the folder the
workers share, under a file lock, and the others wait for it and copy the same one."""

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = ".build-complete"  # written last: a build that failed half way is made again, never copied


def builds_folder(factory: pytest.TempPathFactory) -> Path:
    """The folder of the shared builds, which every worker of this test run sees, two levels below the run's base
    temporary folder as a test's working directory is (tmp_path/work): the scripts' paths in the jobs' params are
    relative to the working directory, so a copy is up to date only at the build's depth. Under xdist each worker
    has a base folder of its own, one level below the run's."""
    base = factory.getbasetemp()
    return base.parent / "shared-builds" / "workers" if os.environ.get("PYTEST_XDIST_WORKER") else base / "builds"


def shared_build(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The working directory `name`, made by `build(workdir)` once for the test run."""
    root = builds_folder(factory)
    root.mkdir(parents=True, exist_ok=True)
    workdir = root / name
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (workdir / DONE).exists():
            shutil.rmtree(workdir, ignore_errors=True)
            workdir.mkdir()
            build(workdir)
            (workdir / DONE).touch()
    return workdir


def copy_build(build: Path, workdir: Path) -> Path:
    """A copy of `build` in `workdir` (a test's tmp_path/work, at the build's depth): its results and Snakemake's
    records, times kept, so the copy is up to date as the build is."""
    shutil.copytree(build, workdir, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(DONE))
    return workdir
