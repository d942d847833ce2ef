"""Pretrain BERT with masked language modelling on the manifest's blocks: check the data before the first step,
resume from a matching checkpoint, log one progress line per logging step."""

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoTokenizer, BertConfig, set_seed
from transformers.utils.logging import disable_progress_bar

from ..atomic import atomic_path
from ..data.manifest import data_digest, read_manifest
from ..errors import DataError
from .backends import rank, world_size
from .blocks import BlockDataset
from .checkpoints import resume_point, run_directory
from .job import TrainingJob
from .masking import BlockCollator, predictions_per_block
from .model import BertForMaskedPositions, bert_config, save_as_bert
from .preflight import check_splits, check_vocabulary, verify_blocks
from .trainers import build_trainer, global_batch_size

# The `pretrain` settings that cannot change the trained weights; every other setting is in the fingerprint, so
# a new setting shapes it unless it is named here (tests/test_fingerprint.py classifies every schema key).
NEUTRAL_SETTINGS = frozenset(
    {
        "backend",  # the resolved backend is fingerprinted instead
        "logging_steps",
        "save_steps",
        "save_total_limit",
        "eval_steps",
        "eval_blocks",
        "per_device_eval_batch_size",
        "dataloader_num_workers",
        "throughput_warmup_steps",
    }
)


def fingerprint_inputs(
    manifest: dict, model: BertConfig, settings: dict, processes: int, backend: str, gaudi_config: str
) -> dict:
    """Everything that can change what training produces: the data, the model, every setting but the neutral
    ones, the world size, the backend and the Gaudi config."""
    return {
        "data": data_digest(manifest),
        "model": model.to_diff_dict(),
        "training": {key: value for key, value in settings.items() if key not in NEUTRAL_SETTINGS},
        "world_size": processes,
        "backend": backend,
        "gaudi_config": json.loads(Path(gaudi_config).read_text()),
    }


def preflight(manifest_path: str, manifest: dict, vocab_size: int, batch: int, backend: str) -> None:
    """Fail before the first step, and before any block is read: vocabulary, splits, and this process's share of
    the block files."""
    started = time.monotonic()
    check_vocabulary(manifest_path, manifest, vocab_size)
    split = manifest["split"]
    check_splits(manifest_path, manifest, split["train_blocks"], split["validation_blocks"], batch)
    checked = verify_blocks(manifest_path, manifest, vocab_size, rank(backend), world_size(backend))
    print(
        f"verified {checked:,} bytes of blocks against the manifest's SHA-256 and the vocabulary "
        f"in {time.monotonic() - started:.1f} s"
    )


def check_world_size(backend: str, planned: int | None) -> int:
    """The ranks the launcher started, which must be the ranks the workflow planned (devices x nodes)."""
    processes = world_size(backend)
    if planned is not None and processes != planned:
        raise DataError(
            f"the {backend} launcher started {processes} ranks, the workflow planned {planned} (devices per node x "
            "nodes): the launcher, the profile and the allocation disagree"
        )
    return processes


def first_batch_blocks(trainer, train: BlockDataset) -> list[int]:
    """The train blocks this rank reads in the first batch of the first epoch, as the trainer shards batches
    between ranks (each rank's batches are disjoint, and together they are the global batch)."""
    batch = next(iter(trainer.get_train_dataloader().batch_sampler))
    return [int(train.indices[index]) for _, index in batch]


def weights_digest(model) -> str:
    """SHA-256 of the model's parameters and buffers in name order: equal on every rank of a data-parallel run."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def summary(trainer, result, block_size: int, backend: str, resumed_from: str | None) -> dict:
    history = trainer.state.log_history
    losses = [entry["loss"] for entry in history if "loss" in entry]
    evals = [entry["eval_loss"] for entry in history if "eval_loss" in entry]
    samples_per_second = result.metrics["train_samples_per_second"]
    return {
        "backend": backend,
        "world_size": trainer.args.world_size,
        "global_batch_size": global_batch_size(trainer.args),
        "steps": trainer.state.global_step,
        "resumed_from": resumed_from,
        "train_runtime": result.metrics["train_runtime"],
        "train_samples_per_second": samples_per_second,
        "train_tokens_per_second": samples_per_second * block_size,
        "initial_loss": losses[0] if losses else None,
        "final_loss": losses[-1] if losses else None,
        "final_eval_loss": evals[-1] if evals else None,
    }


@dataclass
class Run:
    """A trainer ready to train, with what the caller reports from."""

    trainer: object
    train: BlockDataset
    tokenizer: object
    place: str  # "rank r of n"
    resume: str | None


def prepare_run(job: TrainingJob, resume: bool = True) -> Run:
    """Check the data, the launch and the checkpoints before the first step, and build the trainer; `resume`: from
    the newest checkpoint of the same run, if there is one."""
    settings, backend, checkpoints = job.settings, job.backend, job.checkpoints
    disable_progress_bar()  # the log holds one line per logging step (progress.py), not progress bars
    if job.threads:
        torch.set_num_threads(job.threads)
    processes = check_world_size(backend, job.world_size)
    if backend == "cpu" and torch.cuda.is_available():
        print(
            "training on the CPU although a GPU is visible: give pretrain GPUs (profiles/local-gpu, or "
            "--set-resources pretrain:gpu=N) or set pretrain.backend: cuda"
        )
    tokenizer = AutoTokenizer.from_pretrained(job.tokenizer)
    data = read_manifest(job.manifest)
    preflight(job.manifest, data, len(tokenizer), settings["per_device_train_batch_size"] * processes, backend)
    train = BlockDataset(job.manifest, "train")
    validation = BlockDataset(job.manifest, "validation", limit=settings["eval_blocks"])
    config = bert_config(job.model, tokenizer)
    settings = {**settings, "shuffle_seed": data["shuffle_seed"]}
    inputs = fingerprint_inputs(data, config, settings, processes, backend, job.gaudi_config)
    folder = run_directory(checkpoints, inputs)
    resume_from = resume_point(checkpoints, inputs, print) if resume else None
    set_seed(settings["seed"])
    model = BertForMaskedPositions(config)
    if len(validation) < settings["per_device_eval_batch_size"]:
        print(
            f"evaluating in batches of {len(validation)}: only {len(validation)} validation blocks (last batches drop)"
        )
        settings["per_device_eval_batch_size"] = max(len(validation), 1)
    k = predictions_per_block(train.block_size, settings["mlm_probability"], settings["max_predictions"])
    collator = BlockCollator(tokenizer, k, settings["seed"])
    trainer = build_trainer(
        backend, settings, str(folder), model, collator, train, validation, job.on_device, job.gaudi_config
    )
    place = f"rank {rank(backend)} of {processes}"
    print(f"{place}: the first batch of epoch 0 reads train blocks {first_batch_blocks(trainer, train)}", flush=True)
    return Run(trainer, train, tokenizer, place, resume_from)


def pretrain(job: TrainingJob, out: str) -> dict:
    """Train and save the model into `out`."""
    run = prepare_run(job)
    trainer = run.trainer
    result = trainer.train(resume_from_checkpoint=run.resume)
    metrics = summary(trainer, result, run.train.block_size, job.backend, run.resume)
    print(f"{run.place}: trained weights sha256 {weights_digest(trainer.model)}", flush=True)
    if trainer.is_world_process_zero():
        with atomic_path(out) as tmp:
            save_as_bert(trainer, tmp)
            run.tokenizer.save_pretrained(str(tmp))
            (tmp / "training_metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
            (tmp / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1) + "\n")
    return metrics
