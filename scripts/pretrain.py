"""Pretrain BERT with masked language modelling on the manifest's blocks; resume from a matching checkpoint."""

import argparse
import hashlib
import json
import os
from pathlib import Path

import torch
from transformers import AutoTokenizer, BertConfig, set_seed

from atomic import atomic_path
from blocks import BlockDataset, read_manifest
from checkpoints import resume_point, run_directory
from masking import BlockCollator
from model import BertForMaskedPositions, bert_config, save_as_bert
from trainers import build_trainer

RESULT_SETTINGS = (
    "max_steps",
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "learning_rate",
    "warmup_steps",
    "weight_decay",
    "max_grad_norm",
    "mlm_probability",
    "seed",
)


def resolve_backend(backend: str) -> str:
    if backend == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return backend


def fingerprint_inputs(manifest_path: str, model: BertConfig, settings: dict, world_size: int) -> dict:
    """Everything that changes what training produces: data, model shape, result-shaping settings, world size."""
    return {
        "manifest_sha256": hashlib.sha256(Path(manifest_path).read_bytes()).hexdigest(),
        "model": model.to_diff_dict(),
        "training": {key: settings[key] for key in RESULT_SETTINGS},
        "world_size": world_size,
    }


def summary(trainer, result, block_size: int, backend: str, resumed_from: str | None) -> dict:
    history = trainer.state.log_history
    losses = [entry["loss"] for entry in history if "loss" in entry]
    evals = [entry["eval_loss"] for entry in history if "eval_loss" in entry]
    samples_per_second = result.metrics["train_samples_per_second"]
    return {
        "backend": backend,
        "world_size": trainer.args.world_size,
        "global_batch_size": trainer.args.train_batch_size
        * trainer.args.gradient_accumulation_steps
        * trainer.args.world_size,
        "steps": trainer.state.global_step,
        "resumed_from": resumed_from,
        "train_runtime": result.metrics["train_runtime"],
        "train_samples_per_second": samples_per_second,
        "train_tokens_per_second": samples_per_second * block_size,
        "initial_loss": losses[0] if losses else None,
        "final_loss": losses[-1] if losses else None,
        "final_eval_loss": evals[-1] if evals else None,
    }


def pretrain(
    manifest: str,
    tokenizer_dir: str,
    model_settings: dict,
    settings: dict,
    backend: str,
    checkpoints: str,
    out: str,
    on_device: bool = True,
) -> dict:
    backend = resolve_backend(backend)
    world_size = int(os.environ.get("WORLD_SIZE") or os.environ.get("OMPI_COMM_WORLD_SIZE") or 1)
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    config = bert_config(model_settings, tokenizer)
    settings = {**settings, "shuffle_seed": read_manifest(manifest)["shuffle_seed"]}
    inputs = fingerprint_inputs(manifest, config, settings, world_size)
    folder = run_directory(checkpoints, inputs)
    resume = resume_point(checkpoints, inputs, print)
    set_seed(settings["seed"])
    model = BertForMaskedPositions(config)
    train = BlockDataset(manifest, "train")
    validation = BlockDataset(manifest, "validation", limit=settings["eval_blocks"])
    if len(validation) < settings["per_device_eval_batch_size"]:
        print(
            f"evaluating in batches of {len(validation)}: only {len(validation)} validation blocks (last batches drop)"
        )
        settings["per_device_eval_batch_size"] = max(len(validation), 1)
    collator = BlockCollator(tokenizer, settings["mlm_probability"])
    trainer = build_trainer(backend, settings, str(folder), model, collator, train, validation, on_device)
    result = trainer.train(resume_from_checkpoint=resume)
    metrics = summary(trainer, result, train.block_size, backend, resume)
    if trainer.is_world_process_zero():
        with atomic_path(out) as tmp:
            save_as_bert(trainer, tmp)
            tokenizer.save_pretrained(str(tmp))
            (tmp / "training_metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
            (tmp / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1) + "\n")
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--model", required=True, help="the `model` config, as JSON")
    parser.add_argument("--settings", required=True, help="the `pretrain` config, as JSON")
    parser.add_argument("--backend", choices=["auto", "cpu", "cuda", "hpu"], default="auto")
    parser.add_argument("--checkpoints", required=True, help="checkpoint folder, outside the rule's outputs")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for torch (0: torch's default)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    metrics = pretrain(
        args.manifest,
        args.tokenizer,
        json.loads(args.model),
        json.loads(args.settings),
        args.backend,
        args.checkpoints,
        args.out,
    )
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
