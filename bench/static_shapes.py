"""Static-shape masking against the previous path, side by side on the CPU with transformers' Trainer:

a. new: BlockCollator (exactly k = predictions_per_block(block_size, 0.15, None) masked positions per block, a pure
        function of (seed, epoch, block)) and BertForMaskedPositions (a (batch, k) gather, static shapes);
b. old: the previous path, re-implemented here as the baseline: Bernoulli(0.15) masking of each non-special token
        with torch's global generator, and a model that gathers `hidden[labels != -100]` (a boolean mask, so a
        data-dependent shape).

Both train the default config's tiny BERT (config/config.yaml's `model` and `pretrain` sections, through the
pipeline's `build_trainer`: the same initial weights, the same EpochSampler order), with no checkpoint or
evaluation inside the run. Reported:
1. held-out MLM loss after `--loss-steps` steps (0: not measured), each seed in `--seeds`: both saved models
   evaluated by snakebert/training/evaluate.evaluate (k per block, the `evaluate` seed), and by the old evaluation
   (Bernoulli masking from a generator seeded with the `evaluate` seed);
2. training steps/s, `--steps` steps per run (timed from the end of the first step to the end of the last),
   `--reps` interleaved repetitions (0: not measured), median; goal new/old >= 0.97.

    python bench/static_shapes.py --manifest results/dataset/manifest.json --tokenizer results/tokenizer \
        [--loss-steps 1000] [--seeds 42 ...] [--steps 100] [--reps 5] [--threads 2]
"""

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from step_clock import StepClock, interleaved, ratios  # noqa: E402
from transformers import AutoModelForMaskedLM, AutoTokenizer, BertForMaskedLM, set_seed  # noqa: E402
from transformers.modeling_outputs import MaskedLMOutput  # noqa: E402

from snakebert.config_defaults import schema_defaults  # noqa: E402
from snakebert.data.manifest import read_manifest  # noqa: E402
from snakebert.training.block_dataset import BlockDataset  # noqa: E402
from snakebert.training.collator import BlockCollator  # noqa: E402
from snakebert.training.evaluate import evaluate  # noqa: E402
from snakebert.training.job import TrainingJob  # noqa: E402
from snakebert.training.masking import predictions_per_block  # noqa: E402
from snakebert.training.model import BertForMaskedPositions, model_config, save_masked_lm  # noqa: E402
from snakebert.training.phases import plan_phases  # noqa: E402
from snakebert.training.trainers import build_trainer  # noqa: E402

PROBABILITY = 0.15
PATHS = ("new", "old")


def config_section(name: str) -> dict:
    """A section of config/config.yaml over the schema's defaults, as the workflow hands it to the scripts."""
    return {**schema_defaults(name), **yaml.safe_load((REPO / "config" / "config.yaml").read_text()).get(name, {})}


# --- the baseline: the previous masking and model (commit 4696b27's scripts/masking.py and model.py) ---


def old_mask_tokens(ids, probability, special_ids, mask_id, vocab_size, generator=None):
    """Choose `probability` of the non-special tokens; of those 80% -> [MASK], 10% -> random, 10% kept."""
    chosen = torch.rand(ids.shape, generator=generator) < probability
    chosen &= ~torch.isin(ids, special_ids)
    labels = torch.where(chosen, ids, torch.full_like(ids, -100))
    roll = torch.rand(ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, ids.shape, generator=generator)
    inputs = torch.where(chosen & (roll < 0.8), torch.full_like(ids, mask_id), ids)
    inputs = torch.where(chosen & (roll >= 0.8) & (roll < 0.9), random_ids, inputs)
    return inputs, labels


class OldCollator:
    """The previous BlockCollator: full-length labels, -100 where no prediction is asked (items: BlockDataset's)."""

    def __init__(self, tokenizer, probability: float, generator: torch.Generator | None = None) -> None:
        self.probability = probability
        self.special_ids = torch.tensor(sorted(tokenizer.all_special_ids))
        self.mask_id = tokenizer.mask_token_id
        self.vocab_size = len(tokenizer)
        self.generator = generator

    def __call__(self, items: list[dict]) -> dict[str, torch.Tensor]:
        ids = torch.from_numpy(np.stack([item["ids"] for item in items]).astype(np.int64))
        inputs, labels = old_mask_tokens(
            ids, self.probability, self.special_ids, self.mask_id, self.vocab_size, self.generator
        )
        return {"input_ids": inputs, "labels": labels}


class OldModel(BertForMaskedLM):
    """The previous BertForMaskedPositions: the head on `hidden[labels != -100]` (a boolean-mask gather)."""

    def forward(self, input_ids=None, labels=None, num_items_in_batch=None, **kwargs):
        if labels is None:
            return super().forward(input_ids=input_ids, **kwargs)
        hidden = self.bert(input_ids=input_ids, **kwargs).last_hidden_state
        asked = labels != -100
        logits = self.cls(hidden[asked])
        if num_items_in_batch is None:
            loss = F.cross_entropy(logits.float(), labels[asked])
        else:
            loss = F.cross_entropy(logits.float(), labels[asked], reduction="sum") / num_items_in_batch
        return MaskedLMOutput(loss=loss, logits=logits)


@torch.no_grad()
def bernoulli_loss(model_dir: str, manifest: str, settings: dict) -> float:
    """The previous evaluation's MLM loss: Bernoulli masking from a generator seeded with the `evaluate` seed."""
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
    blocks = BlockDataset(read_manifest(manifest), Path(manifest).parent, "validation", limit=settings["max_blocks"])
    collator = OldCollator(tokenizer, PROBABILITY, torch.Generator().manual_seed(settings["seed"]))
    loss_sum, asked = 0.0, 0
    for start in range(0, len(blocks), settings["batch_size"]):
        batch = collator([blocks[index] for index in range(start, min(start + settings["batch_size"], len(blocks)))])
        chosen = batch["labels"] != -100
        logits = model.cls(model.bert(input_ids=batch["input_ids"]).last_hidden_state[chosen]).float()
        loss_sum += F.cross_entropy(logits, batch["labels"][chosen], reduction="sum").item()
        asked += int(chosen.sum())
    return loss_sum / asked


# --- the two paths through the pipeline's trainer ---


def trainer_for(path: str, tokenizer, train, validation, settings: dict, output_dir: str):
    """The pipeline's CPU trainer for `path` ("new" or "old"), its model initialised from `settings["seed"]`."""
    set_seed(settings["seed"])
    model_settings = {**config_section("model"), "architecture": "bert"}  # both paths are BERT's
    config = model_config(model_settings, tokenizer)
    if path == "new":
        k = predictions_per_block(train.block_size, settings["mlm_probability"], settings["max_predictions"])
        model, collator = BertForMaskedPositions(config), BlockCollator(tokenizer, k, settings["seed"])
    else:
        model, collator = OldModel(config), OldCollator(tokenizer, settings["mlm_probability"])
    phase = plan_phases(settings, train.block_size)[0]
    job = TrainingJob("", "", model_settings, settings, backend="cpu", checkpoints=output_dir)
    return build_trainer(job, settings, phase, output_dir, model, (collator, collator), train, validation)


def training_settings(manifest: str, steps: int, seed: int) -> dict:
    """The config's `pretrain` settings for a bench run: one phase of the data set's blocks, 8 per step at 15%, as
    both paths mask (the old one knows no phases); no checkpoint and no evaluation inside it (an evaluation would
    draw on the old path's global generator and shift its later masks)."""
    never = steps + 1
    return {**config_section("pretrain"), "phases": [], "per_device_train_batch_size": 8, "mlm_probability": 0.15,
            "max_steps": steps, "seed": seed, "save_steps": never, "eval_steps": never,
            "shuffle_seed": read_manifest(manifest).shuffle_seed}  # fmt: skip


def held_out(path: str, args, tokenizer, train, validation, seed: int, workdir: str) -> dict:
    """Train `path` for --loss-steps steps, save it as the pipeline does, and evaluate it both ways."""
    settings = training_settings(args.manifest, args.loss_steps, seed)
    trainer = trainer_for(path, tokenizer, train, validation, settings, str(Path(workdir) / f"{path}-{seed}-run"))
    trainer.train()
    folder = Path(workdir) / f"{path}-{seed}"
    save_masked_lm(trainer, tokenizer, folder)
    evaluation = config_section("evaluate")
    masking = {"mlm_probability": settings["mlm_probability"], "max_predictions": settings["max_predictions"]}
    metrics = evaluate(str(folder), args.manifest, {**evaluation, **masking})
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    return {
        "held_out_loss": metrics.mlm_loss,
        "held_out_loss_bernoulli": bernoulli_loss(str(folder), args.manifest, evaluation),
        "masked_token_accuracy": metrics.masked_token_accuracy,
        "train_loss_last_5_logs": statistics.mean(losses[-5:]),
        "validation_blocks": metrics.validation_blocks,
        "masked_tokens": metrics.masked_tokens,
    }


def steps_per_second(path: str, args, tokenizer, train, validation) -> float:
    settings = training_settings(args.manifest, args.steps, args.seeds[0])
    trainer = trainer_for(path, tokenizer, train, validation, settings, tempfile.mkdtemp())
    clock = StepClock(warmup=1)
    trainer.add_callback(clock)
    trainer.train()
    return clock.steps_per_second()


def compare(new: float, old: float) -> dict:
    return {"new": new, "old": old, "new/old": new / old, "new-old": new - old}


def loss_report(args, tokenizer, train, validation) -> dict:
    per_seed = {}
    with tempfile.TemporaryDirectory() as folder:
        for seed in args.seeds:
            per_seed[seed] = {}
            for path in PATHS:
                per_seed[seed][path] = held_out(path, args, tokenizer, train, validation, seed, folder)
                print(f"held out, seed {seed}, {path}: {json.dumps(per_seed[seed][path])}", flush=True)

    def mean(path: str, key: str) -> float:
        return statistics.mean(result[path][key] for result in per_seed.values())

    first = per_seed[args.seeds[0]]["new"]
    return {
        "loss_steps": args.loss_steps,
        "seeds": args.seeds,
        "validation_blocks": first["validation_blocks"],
        "evaluate_masked_tokens": first["masked_tokens"],
        "held_out_loss (evaluate_model.evaluate, mean over seeds)": compare(
            mean("new", "held_out_loss"), mean("old", "held_out_loss")
        ),
        "held_out_loss_bernoulli (the old evaluation, mean over seeds)": compare(
            mean("new", "held_out_loss_bernoulli"), mean("old", "held_out_loss_bernoulli")
        ),
        "per_seed": per_seed,
    }


def speed_report(args, tokenizer, train, validation) -> dict:
    speeds = interleaved(PATHS, args.reps, lambda path: steps_per_second(path, args, tokenizer, train, validation))
    median = {path: statistics.median(values) for path, values in speeds.items()}
    return {
        "steps_per_second": median,
        "steps_per_second_runs": speeds,
        "new/old steps/s (goal >= 0.97)": median["new"] / median["old"],
        "new/old steps/s per repetition": ratios(speeds["new"], speeds["old"])["per_repetition"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument(
        "--loss-steps", type=int, default=1000, help="training steps before the held-out loss (0: none)"
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[42], help="training seeds (init and masking)")
    parser.add_argument("--steps", type=int, default=100, help="training steps per speed run (at least 2)")
    parser.add_argument("--reps", type=int, default=5, help="interleaved speed repetitions (0: no speed measure)")
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    args = parser.parse_args()
    if args.reps and args.steps < 2:
        parser.error("--steps must be at least 2 (the first step is left out of the timing)")

    torch.set_num_threads(args.threads)
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    manifest, folder = read_manifest(args.manifest), Path(args.manifest).parent
    train = BlockDataset(manifest, folder, "train")
    validation = BlockDataset(manifest, folder, "validation", limit=config_section("pretrain")["eval_blocks"])
    report = {"predictions_per_block": predictions_per_block(train.block_size, PROBABILITY, None)}
    report["threads"] = args.threads
    if args.loss_steps:
        report.update(loss_report(args, tokenizer, train, validation))
    if args.reps:
        report.update(speed_report(args, tokenizer, train, validation))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
