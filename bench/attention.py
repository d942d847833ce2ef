"""The attention kernel of our BERT: transformers' default `sdpa` (PyTorch's scaled-dot-product attention) against
the `eager` implementation, on the same weights and batches: how far their outputs and gradients differ, and the
training steps per second of each, interleaved repetitions side by side.

    python bench/attention.py [--layers 4 --hidden 256 --heads 4] [--seq 512 --batch 8] [--steps 10 --reps 3]
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
from transformers import BertConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from snakebert.training.model import BertForMaskedPositions  # noqa: E402

KERNELS = ("eager", "sdpa")


def models(args) -> dict:
    """One model per kernel, with the same initial weights."""
    built = {}
    for kernel in KERNELS:
        config = BertConfig(
            vocab_size=8000, hidden_size=args.hidden, num_hidden_layers=args.layers, num_attention_heads=args.heads,
            intermediate_size=4 * args.hidden, max_position_embeddings=max(args.seq, 512), attn_implementation=kernel,
        )  # fmt: skip
        torch.manual_seed(0)
        built[kernel] = BertForMaskedPositions(config)
    return built


def batch(args, seed: int) -> dict:
    generator = torch.Generator().manual_seed(seed)
    k = round(0.15 * args.seq)
    positions = torch.stack(
        [torch.randperm(args.seq, generator=generator)[:k].sort().values for _ in range(args.batch)]
    )
    return {
        "input_ids": torch.randint(5, 8000, (args.batch, args.seq), generator=generator),
        "masked_positions": positions,
        "labels": torch.randint(5, 8000, (args.batch, k), generator=generator),
    }


def differences(built: dict, inputs: dict) -> dict:
    """The largest differences between the kernels: the loss, the logits and every gradient (dropout off)."""
    outputs, grads = {}, {}
    for kernel, model in built.items():
        model.eval()
        model.zero_grad()
        outputs[kernel] = model(**inputs)
        outputs[kernel].loss.backward()
        grads[kernel] = {name: parameter.grad for name, parameter in model.named_parameters()}
    eager, sdpa = outputs["eager"], outputs["sdpa"]
    return {
        "loss": abs(float(eager.loss - sdpa.loss)),
        "logits": float((eager.logits - sdpa.logits).abs().max()),
        "gradient": max(float((grads["eager"][name] - grads["sdpa"][name]).abs().max()) for name in grads["eager"]),
    }


def steps_per_second(model, inputs: dict, steps: int) -> float:
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model(**inputs).loss.backward()  # warm-up
    start = time.perf_counter()
    for _ in range(steps):
        optimizer.zero_grad()
        model(**inputs).loss.backward()
        optimizer.step()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag, default in (("--layers", 4), ("--hidden", 256), ("--heads", 4), ("--seq", 512), ("--batch", 8)):
        parser.add_argument(flag, type=int, default=default)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: its default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    built, inputs = models(args), batch(args, 0)
    found = differences(built, inputs)
    speeds = {kernel: [] for kernel in KERNELS}
    for _ in range(args.reps):  # interleaved
        for kernel in KERNELS:
            speeds[kernel].append(steps_per_second(built[kernel], inputs, args.steps))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    report = {
        "commit": commit,
        "shape": vars(args),
        "max_difference": found,
        "steps_per_second": {kernel: statistics.median(values) for kernel, values in speeds.items()},
        "runs": speeds,
    }
    report["sdpa/eager"] = report["steps_per_second"]["sdpa"] / report["steps_per_second"]["eager"]
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
