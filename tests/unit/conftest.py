"""The unit tier's data: the tiny data set built by the library's own functions in a fraction of a second, a tiny BERT
base with its tokenizer, and a tiny RoBERTa base with the same data set tokenized by its tokenizer; and a real full
disk, a small tmpfs."""

import subprocess

import pytest
from helpers import build_continued_data, build_tiny_data, save_tiny_model, save_tiny_roberta


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory):
    """results/ of tiny-data.yaml's settings over the tiny corpus (read-only: copy what a test changes)."""
    return build_tiny_data(tmp_path_factory.mktemp("tiny-data"))


@pytest.fixture(scope="module")
def base(tiny_data, tmp_path_factory) -> str:
    """A one-layer BERT masked LM with the tiny tokenizer (200 tokens), as a base folder."""
    return save_tiny_model(tiny_data.tokenizer, tmp_path_factory.mktemp("base") / "model")


@pytest.fixture(scope="session")
def roberta_base(tmp_path_factory) -> str:
    """A one-layer RoBERTa masked LM with its own byte-level BPE tokenizer, as a base folder."""
    return save_tiny_roberta(tmp_path_factory.mktemp("roberta") / "model")


@pytest.fixture(scope="session")
def roberta_data(roberta_base, tmp_path_factory):
    """The tiny data set with the RoBERTa base's tokenizer kept as a continued run keeps it (keep_tokenizer)."""
    return build_continued_data(tmp_path_factory.mktemp("roberta-data"), roberta_base)


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs with no byte free (the tests run as root: CI does)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        with pytest.raises(OSError, match="No space left on device"), (disk / "filler").open("wb") as filler:
            filler.write(b"x" * 128 * 1024)
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)
