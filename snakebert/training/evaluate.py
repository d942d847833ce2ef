"""Evaluate a pretrained model on the held-out blocks: MLM loss, perplexity and masked-token accuracy.

Masking is the evaluation's own (`evaluate.mlm_probability`, 15% by default, BERT's 80/10/10, k positions per
block, a pure function of the seed and the block), whatever training's phases and mask rate: two evaluations of one
model mask the same tokens and agree, and runs with other recipes compare.
"""

import math
from pathlib import Path

import torch
import torch.nn.functional as F
from transformers import AutoTokenizer

from ..data.manifest import read_manifest
from ..errors import DataError
from ..machine import machine
from .block_dataset import BlockDataset
from .collator import BlockCollator
from .eval_metrics import EvalMetrics
from .masking import IGNORED, predictions_per_block
from .model import load_masked_lm, masked_logits


@torch.no_grad()
def evaluate(model_dir: str, manifest: str, settings: dict, threads: int = 0) -> EvalMetrics:
    """`settings`: the `evaluate` config (its seed, batch size, block limit and masking: `mlm_probability` and
    `max_predictions`); `threads`: torch's CPU threads (0: its default)."""
    if threads:
        torch.set_num_threads(threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = load_masked_lm(model_dir).to(device).eval()
    blocks = BlockDataset(read_manifest(manifest), Path(manifest).parent, "validation", limit=settings["max_blocks"])
    k = predictions_per_block(blocks.block_size, settings["mlm_probability"], settings["max_predictions"])
    collator = BlockCollator(tokenizer, k, settings["seed"])
    loss_sum, correct, asked = 0.0, 0, 0
    label_counts = torch.zeros(len(tokenizer), dtype=torch.long)
    for start in range(0, len(blocks), settings["batch_size"]):
        batch = collator([blocks[index] for index in range(start, min(start + settings["batch_size"], len(blocks)))])
        inputs, positions = batch["input_ids"].to(device), batch["masked_positions"].to(device)
        logits = masked_logits(model, inputs, positions).float().cpu().flatten(0, 1)
        labels = batch["labels"].flatten()
        chosen = labels != IGNORED
        loss_sum += F.cross_entropy(logits, labels, ignore_index=IGNORED, reduction="sum").item()
        correct += int(((logits.argmax(-1) == labels) & chosen).sum())
        asked += int(chosen.sum())
        label_counts += torch.bincount(labels[chosen], minlength=len(tokenizer))
    if asked == 0:
        raise DataError(nothing_to_predict(manifest, len(blocks), tokenizer))
    loss = loss_sum / asked
    return EvalMetrics(
        validation_blocks=len(blocks),
        masked_tokens=asked,
        mlm_loss=loss,
        perplexity=math.exp(loss),
        masked_token_accuracy=correct / asked,
        chance_accuracy=1 / len(tokenizer),
        most_frequent_token_accuracy=int(label_counts.max()) / asked,
        masking_seed=settings["seed"],
        predictions_per_block=k,
        machine=machine(device),
    )


def nothing_to_predict(manifest: str, blocks: int, tokenizer) -> str:
    """Why an evaluation has no masked token: no validation block, or blocks of special tokens alone."""
    if blocks == 0:
        return f"{manifest}: no validation blocks to evaluate (data.validation_fraction is 0?)"
    return (
        f"{manifest}: its {blocks} validation blocks hold no token that masking may predict: every token is a special "
        f"one ({', '.join(tokenizer.all_special_tokens)}), so the tokenizer reads none of the corpus's words; check "
        "the tokenizer (a base's, model.init_from) against the corpus"
    )
