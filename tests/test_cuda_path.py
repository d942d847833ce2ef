"""The CUDA path's settings, and the part of it this machine can run: our model through transformers' Trainer
with fused AdamW and torch.compile, on the CPU."""

import json
import math

import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer, TrainingArguments

from blocks import BlockDataset
from config_defaults import schema_defaults
from masking import BlockCollator
from model import BertForMaskedPositions, bert_config, save_as_bert
from trainers import common_arguments, cuda_arguments

SETTINGS = {
    **schema_defaults("pretrain"), "max_steps": 4, "per_device_train_batch_size": 4, "per_device_eval_batch_size": 4,
    "learning_rate": 0.005, "warmup_steps": 0, "logging_steps": 1, "save_steps": 100, "save_total_limit": 1,
    "eval_steps": 100, "dataloader_num_workers": 0, "shuffle_seed": 34,
}  # fmt: skip


def test_cuda_arguments_turn_on_bf16_and_tf32_from_ampere_and_always_fuse_adamw():
    assert cuda_arguments(SETTINGS, (9, 0)) == {
        "bf16": True, "tf32": True, "optim": "adamw_torch_fused", "torch_compile": True,
    }  # fmt: skip
    older = cuda_arguments({**SETTINGS, "torch_compile": False}, (7, 0))
    assert older == {"bf16": False, "tf32": False, "optim": "adamw_torch_fused", "torch_compile": False}


def test_our_model_trains_compiled_with_fused_adamw_and_saves_as_plain_bert(trained, tmp_path):
    from transformers import Trainer

    tokenizer = AutoTokenizer.from_pretrained(trained / "results/tokenizer")
    manifest = str(trained / "results/dataset/manifest.json")
    model_settings = json.loads((trained / "results/model/config.json").read_text())
    dimensions = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
    model = BertForMaskedPositions(bert_config({key: model_settings[key] for key in dimensions}, tokenizer))
    arguments = {**common_arguments(SETTINGS, str(tmp_path / "run")), **cuda_arguments(SETTINGS, (7, 0))}
    trainer = Trainer(
        model=model,
        args=TrainingArguments(**arguments, use_cpu=True),
        data_collator=BlockCollator(tokenizer, 2, seed=42),
        train_dataset=BlockDataset(manifest, "train"),
        eval_dataset=BlockDataset(manifest, "validation"),
    )
    trainer.train()
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 4 and all(math.isfinite(loss) for loss in losses)
    assert type(trainer.model_wrapped).__name__ == "OptimizedModule"
    assert type(trainer.optimizer.optimizer).__name__ == "AdamW" and trainer.optimizer.optimizer.defaults["fused"]
    save_as_bert(trainer, tmp_path / "model")
    saved = AutoModelForMaskedLM.from_pretrained(tmp_path / "model")
    for name, weight in model.state_dict().items():
        assert torch.equal(saved.state_dict()[name], weight), name
