"""The unit tier's data: the tiny data set built by the library's own functions in a fraction of a second."""

import pytest
from helpers import build_tiny_data


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory):
    """results/ of tiny-data.yaml's settings over the tiny corpus (read-only: copy what a test changes)."""
    return build_tiny_data(tmp_path_factory.mktemp("tiny-data"))
