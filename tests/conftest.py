"""Shared fixtures (a fresh working directory; the data half and the whole tiny pipeline, each built once for the
test run: tests/shared_builds.py) and the tiers: each test is marked by its folder (unit, workflow, slurm, hpu), so
`python -m pytest -m "not workflow"` runs the fast ones."""

import os
from pathlib import Path

import pytest
import torch
from helpers import CORES, MANIFEST, snakemake, training_config
from shared_builds import copy_build, shared_build


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def data_half(tmp_path_factory) -> Path:
    """The data half (the manifest) of training_config's corpus, built once for the test run: copy it into a test's
    working directory (shared_builds.copy_build) rather than building it again."""
    return shared_build(
        tmp_path_factory, "data-half", lambda workdir: snakemake(workdir, MANIFEST, config=training_config(workdir))
    )


@pytest.fixture(scope="session")
def trained(tmp_path_factory) -> Path:
    """The whole pipeline (rule all) with the tiny BERT, run once for the test run."""
    return shared_build(
        tmp_path_factory, "trained", lambda workdir: snakemake(workdir, config=training_config(workdir))
    )


@pytest.fixture
def trained_copy(trained, workdir) -> Path:
    """A copy of the trained pipeline in the test's working directory: for a test that runs snakemake on it (a dry
    run rewrites the config file and Snakemake's records), which the shared build must not see."""
    return copy_build(trained, workdir)


def pytest_configure(config):
    """On one of several pytest-xdist workers, torch runs one thread here and in the processes this one starts, so
    that the workers' threads never outnumber the cores (helpers.CORES)."""
    if CORES == 1:
        os.environ["OMP_NUM_THREADS"] = "1"
        torch.set_num_threads(1)


TIERS = ("unit", "workflow", "slurm", "hpu")


def xdist_group(tier: str, item) -> str | None:
    """The pytest-xdist group of a test (`--dist loadgroup`): every test that uses the SLURM test cluster on one
    worker, in turn (their jobs would meet on its one node), whose tests mostly wait on the scheduler's timers while
    the other workers run the rest; a workflow module on one worker, so its module's builds are made once (a test
    without a group goes with its module, wherever a worker is free)."""
    if tier == "slurm" and "cluster" in item.fixturenames:
        return "slurm-cluster"
    return item.module.__name__ if tier == "workflow" else None


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        tier = Path(item.path).relative_to(Path(__file__).parent).parts[0]
        if tier in TIERS:
            item.add_marker(tier)
        group = xdist_group(tier, item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_terminal_summary(terminalreporter):
    """The seconds each tier's tests took (set-up, call and teardown, added up over the workers, which run side by
    side): where the suite's time goes, next to --durations' slowest tests."""
    seconds = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                tier = report.nodeid.split("/")[1]  # tests/<tier>/test_x.py::test
                seconds[tier] = seconds.get(tier, 0.0) + report.duration
    if seconds:
        terminalreporter.write_line(
            "test time by tier: " + ", ".join(f"{tier} {total:.0f} s" for tier, total in sorted(seconds.items()))
        )
