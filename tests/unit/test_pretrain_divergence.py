"""A pretraining run that diverges (a loss that is not finite) stops at that logging step and saves no model: the job
fails naming the step and what to change, instead of writing a model and metrics of nan."""

import re

import pytest
from helpers import TINY_TRAINING

from snakebert.config_defaults import schema_defaults
from snakebert.errors import DataError
from snakebert.training.job import TrainingJob
from snakebert.training.pretrain import pretrain


def test_a_run_whose_loss_is_not_finite_stops_there_and_saves_no_model(tiny_data, tmp_path, monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.chdir(tmp_path)
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "learning_rate": 1e30, "warmup_steps": 0,
                "max_steps": 40, "logging_steps": 1, "save_steps": 1000}  # fmt: skip
    job = TrainingJob(str(tiny_data.manifest), str(tiny_data.tokenizer), TINY_TRAINING["model"], settings,
                      backend="cpu", checkpoints=str(tmp_path / "checkpoints"), threads=1)  # fmt: skip
    with pytest.raises(DataError, match=r"pretraining diverged: its loss is nan at step (\d+), so no model is saved; "
                       r"lower pretrain.learning_rate") as refused:  # fmt: skip
        pretrain(job, str(tmp_path / "model"))
    assert int(re.search(r"at step (\d+)", str(refused.value)).group(1)) < settings["max_steps"]
    assert not (tmp_path / "model").exists()
