"""Shared fixtures (a fresh working directory, the whole pipeline trained once per session) and the tiers: each test
is marked by its folder (unit, workflow, slurm, hpu), so `python -m pytest -m "not workflow"` runs the fast ones."""

from pathlib import Path

import pytest
from helpers import snakemake, training_config


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def trained(tmp_path_factory) -> Path:
    """The whole pipeline (rule all) with the tiny BERT, run once for the session."""
    workdir = tmp_path_factory.mktemp("trained")
    snakemake(workdir, config=training_config(workdir))
    return workdir


TIERS = ("unit", "workflow", "slurm", "hpu")


def pytest_collection_modifyitems(config, items):
    for item in items:
        tier = Path(item.path).relative_to(Path(__file__).parent).parts[0]
        if tier in TIERS:
            item.add_marker(tier)
