"""Setup of the HPU contract tests: the Habana runtime's stand-ins on the path, and the tiny data set that the
pipeline's own functions build (tests/helpers.py), in the pipeline's environment, as a real run's data half does."""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
STANDINS = HERE / "standins"


def _prepend_to(variable: str, path: Path) -> None:
    entries = [entry for entry in os.environ.get(variable, "").split(os.pathsep) if entry]
    if str(path) not in entries:
        os.environ[variable] = os.pathsep.join([str(path), *entries])


# `import optimum.habana` runs `pip list | grep habana-torch-plugin` in a shell: that must be this environment's pip,
# and it must find the stand-ins' pip metadata from any working directory (the tests change it).
_prepend_to("PYTHONPATH", STANDINS)
_prepend_to("PATH", Path(sys.executable).parent)
for _path in (STANDINS, REPO, REPO / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

PIPELINE_PYTHON = os.environ.get("SNAKEBERT_PIPELINE_PYTHON")  # set by run.sh: the python that ran it


def in_pipeline_environment(code: str, *arguments: str) -> str:
    """Run `code` in the pipeline's environment (requirements.txt), with the repository and tests/ importable;
    its standard output. The DL1 job's stack differs: tokenizers 0.21 against 0.23, transformers 4.51 against 5."""
    if not PIPELINE_PYTHON:
        pytest.fail("SNAKEBERT_PIPELINE_PYTHON is not set: run the HPU tests with tests/hpu/run.sh")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "tests"), str(REPO)])}
    done = subprocess.run(
        [PIPELINE_PYTHON, "-c", code, *arguments], env=environment, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory) -> SimpleNamespace:
    """The tiny data set made by the pipeline's environment, which a DL1 job reads with its own."""
    root = tmp_path_factory.mktemp("data")
    in_pipeline_environment(
        "import sys, pathlib, helpers; helpers.build_tiny_data(pathlib.Path(sys.argv[1]))", str(root)
    )
    return SimpleNamespace(
        root=root, manifest=root / "results/dataset/manifest.json", tokenizer=root / "results/tokenizer"
    )


@pytest.fixture(scope="session")
def roberta_data(tmp_path_factory) -> SimpleNamespace:
    """A tiny RoBERTa base (`base/`) and the tiny data set with its tokenizer kept, made by the pipeline's environment
    as a continued run's data half makes them."""
    root = tmp_path_factory.mktemp("roberta-data")
    in_pipeline_environment(
        "import sys, pathlib, helpers; root = pathlib.Path(sys.argv[1]); "
        "helpers.build_continued_data(root, helpers.save_tiny_roberta(root / 'base'))",
        str(root),
    )
    return SimpleNamespace(
        root=root,
        base=root / "base",
        manifest=root / "results/dataset/manifest.json",
        tokenizer=root / "results/tokenizer",
    )
