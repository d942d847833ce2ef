"""The training step has the same tensor shapes at every step (a graph-mode device builds one graph per set of
shapes), whatever the batch's content, and batches do not depend on the number of dataloader workers."""

import numpy as np
import pytest
import torch
from helpers import TINY_TRAINING, save_tiny_model
from shape_log import changed_ops, step_shapes, training_step_shapes
from transformers import AutoTokenizer, BertModel

from snakebert.config_defaults import schema_defaults
from snakebert.data.manifest import read_manifest
from snakebert.training.base_model import INIT_FROM, job_model
from snakebert.training.block_dataset import BlockDataset
from snakebert.training.collator import BlockCollator
from snakebert.training.job import TrainingJob
from snakebert.training.masking import IGNORED, predictions_per_block
from snakebert.training.model import ARCHITECTURES, masked_positions_model, model_config
from snakebert.training.phases import plan_phases
from snakebert.training.trainers import build_trainer


def tiny_trainer(data, folder, workers: int = 0, architecture: str = "bert", base: str | None = None):
    """The pipeline's CPU trainer over the tiny data set's blocks (16 tokens), as pretrain builds it: from scratch,
    or continued from the model folder `base` (its architecture)."""
    tokenizer = AutoTokenizer.from_pretrained(data.tokenizer)
    manifest = read_manifest(str(data.manifest))
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "dataloader_num_workers": workers}
    settings["shuffle_seed"] = manifest.shuffle_seed
    torch.manual_seed(0)
    model_settings = {**TINY_TRAINING["model"], "architecture": architecture}
    if base:
        model_settings = job_model({**dict.fromkeys(schema_defaults("model")), INIT_FROM: base})
    model = masked_positions_model(model_config(model_settings, tokenizer), base)
    collator = BlockCollator(tokenizer, predictions_per_block(16, 0.15, None), seed=42)
    train = BlockDataset(manifest, data.manifest.parent, "train")
    validation = BlockDataset(manifest, data.manifest.parent, "validation")
    phase = plan_phases(settings, 16)[0]
    job = TrainingJob(
        str(data.manifest), str(data.tokenizer), model_settings, settings, backend="cpu", checkpoints=str(folder)
    )
    return build_trainer(job, settings, phase, str(folder), model, (collator, collator), train, validation)


def varied_batches(trainer) -> list[dict]:
    """Two batches as the trainer's loader gives them, one crowded with [CLS]/[SEP], one with blocks that hold fewer
    ordinary tokens than k (so some prediction slots are padding)."""
    loader = iter(trainer.get_train_dataloader())
    batches = [next(loader), next(loader)]
    tokenizer_special = trainer.data_collator.special_ids
    items = [trainer.train_dataset[index] for index in range(8)]
    crowded = [{**item, "ids": np.where(np.arange(16) % 3 == 0, tokenizer_special[2], item["ids"])} for item in items]
    sparse = [{**item, "ids": np.where(np.arange(16) == 7, item["ids"], tokenizer_special[3])} for item in items]
    batches += [trainer.data_collator(crowded), trainer.data_collator(sparse)]
    assert (batches[3]["labels"] == IGNORED).any()
    return batches


@pytest.mark.parametrize("architecture", sorted(ARCHITECTURES))
def test_every_training_step_creates_the_same_shapes(tiny_data, tmp_path, architecture):
    trainer = tiny_trainer(tiny_data, tmp_path, architecture=architecture)
    logs = [training_step_shapes(trainer, batch) for batch in varied_batches(trainer)]
    assert len(logs[0]) > 100 and any("backward" in op for op, _ in logs[0])  # forward and backward recorded
    assert changed_ops(logs) == []


@pytest.mark.parametrize("architecture", ["bert", "roberta"])
def test_every_step_of_a_continued_run_creates_the_same_shapes(tiny_data, roberta_data, roberta_base, tmp_path,
                                                               architecture):  # fmt: skip
    """From a base's weights, with its tokenizer's blocks: a BERT encoder base (the tiny tokenizer; its pooler kept,
    run by each step) and a RoBERTa one."""
    if architecture == "bert":
        data, base = tiny_data, save_tiny_model(tiny_data.tokenizer, tmp_path / "base")
        BertModel.from_pretrained(base).save_pretrained(base)  # the encoder with a pooler, the tokenizer as it was
    else:
        data, base = roberta_data, roberta_base
    trainer = tiny_trainer(data, tmp_path / "run", base=base)
    assert trainer.model.config.model_type == architecture
    if architecture == "bert":
        assert trainer.model.bert.pooler is not None  # kept from the base
    logs = [training_step_shapes(trainer, batch) for batch in varied_batches(trainer)]
    assert len(logs[0]) > 100 and changed_ops(logs) == []


def test_the_shape_log_sees_a_boolean_mask_gather():
    """The check can fail: gathering masked positions with a boolean mask (the count depends on the data) shows."""
    hidden = torch.randn(2, 16, 8, requires_grad=True)
    labels = [torch.full((2, 16), IGNORED), torch.full((2, 16), IGNORED)]
    labels[0][0, :3], labels[1][:, :5] = 1, 1
    logs = [step_shapes(lambda asked: hidden[asked != IGNORED].sum().backward(), batch) for batch in labels]
    assert changed_ops(logs) != []


def test_batches_are_the_same_with_0_and_2_dataloader_workers(tiny_data, tmp_path):
    loaders = [tiny_trainer(tiny_data, tmp_path / str(workers), workers).get_train_dataloader() for workers in (0, 2)]
    for epoch in (0, 1):
        seen = []
        for loader in loaders:
            loader.set_epoch(epoch)
            batches = iter(loader)
            seen.append([next(batches) for _ in range(3)])
        for first, second in zip(*seen, strict=True):
            assert first.keys() == second.keys() == {"input_ids", "masked_positions", "labels"}
            assert all(torch.equal(first[key], second[key]) for key in first)
    assert not torch.equal(seen[0][0]["input_ids"], first_batch_of_epoch_0(loaders[0]))


def first_batch_of_epoch_0(loader) -> torch.Tensor:
    loader.set_epoch(0)
    return next(iter(loader))["input_ids"]
