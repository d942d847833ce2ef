"""Shared fixtures: a fresh working directory, and the whole pipeline trained once per session."""

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
