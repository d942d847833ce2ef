"""Evaluate a pretrained model on the held-out blocks: MLM loss, perplexity and masked-token accuracy.

Masking uses its own seeded generator, so two evaluations of one model mask the same tokens and agree.
"""

import argparse
import json
import math

import torch
import torch.nn.functional as F
from transformers import AutoModelForMaskedLM, AutoTokenizer

from atomic import atomic_path
from blocks import BlockDataset
from errors import DataError, run_cli
from masking import BlockCollator


@torch.no_grad()
def evaluate(model_dir: str, manifest: str, settings: dict, probability: float) -> dict:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).to(device).eval()
    blocks = BlockDataset(manifest, "validation", limit=settings["max_blocks"])
    collator = BlockCollator(tokenizer, probability, torch.Generator().manual_seed(settings["seed"]))
    loss_sum, correct, asked = 0.0, 0, 0
    label_counts = torch.zeros(len(tokenizer), dtype=torch.long)
    for start in range(0, len(blocks), settings["batch_size"]):
        batch = collator([blocks[index] for index in range(start, min(start + settings["batch_size"], len(blocks)))])
        labels = batch["labels"]
        logits = model(input_ids=batch["input_ids"].to(device)).logits.float().cpu()
        chosen = labels != -100
        loss_sum += F.cross_entropy(logits[chosen], labels[chosen], reduction="sum").item()
        correct += int((logits[chosen].argmax(-1) == labels[chosen]).sum())
        asked += int(chosen.sum())
        label_counts += torch.bincount(labels[chosen], minlength=len(tokenizer))
    if asked == 0:
        raise DataError(f"{manifest}: no validation tokens to evaluate (data.validation_fraction is 0?)")
    loss = loss_sum / asked
    return {
        "validation_blocks": len(blocks),
        "masked_tokens": asked,
        "mlm_loss": loss,
        "perplexity": math.exp(loss),
        "masked_token_accuracy": correct / asked,
        "chance_accuracy": 1 / len(tokenizer),
        "most_frequent_token_accuracy": int(label_counts.max()) / asked,
        "masking_seed": settings["seed"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--settings", required=True, help="the `evaluate` config, as JSON")
    parser.add_argument("--mlm-probability", type=float, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    metrics = evaluate(args.model, args.manifest, json.loads(args.settings), args.mlm_probability)
    with atomic_path(args.out) as tmp:
        tmp.write_text(json.dumps(metrics, indent=1) + "\n")
    print(json.dumps(metrics))


if __name__ == "__main__":
    run_cli(main)
