"""The CUDA path's settings, and the part of it this machine can run: our model through transformers' Trainer
with fused AdamW and torch.compile, on the CPU (in the workflow tier: compiling builds C++ for a minute)."""

import math

import pytest
import torch
from helpers import TINY_TRAINING, build_tiny_data
from transformers import AutoModelForMaskedLM, AutoTokenizer, TrainingArguments

from snakebert.config_defaults import schema_defaults
from snakebert.data.manifest import read_manifest
from snakebert.training.backends import cuda_arguments
from snakebert.training.block_dataset import BlockDataset
from snakebert.training.collator import BlockCollator
from snakebert.training.model import masked_positions_model, model_config, save_masked_lm
from snakebert.training.phases import plan_phases
from snakebert.training.trainers import common_arguments

SETTINGS = {
    **schema_defaults("pretrain"), "max_steps": 4, "per_device_train_batch_size": 4, "per_device_eval_batch_size": 4,
    "learning_rate": 0.005, "warmup_steps": 0, "logging_steps": 1, "save_steps": 100, "save_total_limit": 1,
    "eval_steps": 100, "dataloader_num_workers": 0, "shuffle_seed": 34,
}  # fmt: skip


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory):
    return build_tiny_data(tmp_path_factory.mktemp("tiny-data"))


def test_our_model_trains_compiled_with_fused_adamw_and_saves_as_plain_bert(tiny_data, tmp_path):
    from transformers import Trainer

    tokenizer = AutoTokenizer.from_pretrained(tiny_data.tokenizer)
    manifest, folder = read_manifest(str(tiny_data.manifest)), tiny_data.manifest.parent
    model = masked_positions_model(model_config(TINY_TRAINING["model"], tokenizer))
    phase = plan_phases(SETTINGS, 16)[0]
    arguments = {
        **common_arguments(SETTINGS, phase, str(tmp_path / "run")),
        **cuda_arguments(SETTINGS["torch_compile"], (7, 0)),
    }
    trainer = Trainer(
        model=model,
        args=TrainingArguments(**arguments, use_cpu=True),
        data_collator=BlockCollator(tokenizer, 2, seed=42),
        train_dataset=BlockDataset(manifest, folder, "train"),
        eval_dataset=BlockDataset(manifest, folder, "validation"),
    )
    trainer.train()
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 4 and all(math.isfinite(loss) for loss in losses)
    assert type(trainer.model_wrapped).__name__ == "OptimizedModule"
    assert type(trainer.optimizer.optimizer).__name__ == "AdamW" and trainer.optimizer.optimizer.defaults["fused"]
    save_masked_lm(trainer, tokenizer, tmp_path / "model")
    saved = AutoModelForMaskedLM.from_pretrained(tmp_path / "model")
    for name, weight in model.state_dict().items():
        assert torch.equal(saved.state_dict()[name], weight), name
