"""Setup of the HPU contract tests: the Habana runtime's stand-ins on the path, and the tiny data set that the
pipeline's own functions build (tests/helpers.py)."""

import os
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

from helpers import build_tiny_data  # noqa: E402


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory) -> SimpleNamespace:
    return build_tiny_data(tmp_path_factory.mktemp("data"))
