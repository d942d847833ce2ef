"""BERT MLM training throughput on one GPU, side by side: our training path against the plain transformers Trainer.

    python bench/gpu.py [--steps 80] [--warmup 20] [--batch 64] [--seq 512] [--repeats 3] [--out gpu.json]
    python bench/gpu.py --device cpu --tiny --steps 3 --warmup 1 --batch 2 --seq 64 --repeats 2   # smoke run
    python bench/gpu.py --device cpu --init-from FOLDER --steps 12 --warmup 4 --batch 32 --seq 128   # continued

- ours:  the pipeline's own trainer (snakebert/training/trainers.py `build_trainer`, the settings the pipeline passes):
         BertForMaskedPositions (vocabulary logits on masked positions only), SDPA attention, bf16 and TF32,
         fused AdamW, torch.compile; packed blocks (no padding, no attention mask);
- plain: BertForMaskedLM through transformers' Trainer defaults with bf16 (logits on every position).
With --init-from, a BERT base folder (a continued run's `model.init_from`): both paths start from its weights and
take its dimensions and vocabulary, ours through the pipeline's own loader (training/model.py
`masked_positions_model`), plain as run_mlm.py does (`BertForMaskedLM.from_pretrained`, its Trainer's defaults); a
base without an MLM head gets a fresh one in both.
Both train on the same packed blocks with the same masking, in `--repeats` interleaved repetitions (ours, plain,
then plain, ours, ...: bench/step_clock.py `interleaved`), each a fresh trainer and model. Throughput counts the
steps after `--warmup` (compilation and the first allocations stay out). Reports, for every repetition, samples/s,
tokens/s and model FLOPs utilisation (the FLOPs of a standard BERT MLM step, whose head covers every position, over
the GPU's dense bf16 peak: --peak-tflops; an H200's is about 989); each path's medians; and ours/plain for samples/s
and tokens/s, repetition by repetition, with their median and spread. One call measures everything; --out also
writes the report to a file.
"""

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import transformers  # noqa: E402
from step_clock import StepClock, interleaved, ratios  # noqa: E402
from torch.utils.data import Subset  # noqa: E402
from transformers import BertConfig, BertForMaskedLM, Trainer, TrainingArguments  # noqa: E402

from snakebert.config_defaults import schema_defaults  # noqa: E402
from snakebert.training.job import TrainingJob  # noqa: E402
from snakebert.training.masking import IGNORED, mask_blocks, predictions_per_block  # noqa: E402
from snakebert.training.model import masked_positions_model  # noqa: E402
from snakebert.training.phases import plan_phases  # noqa: E402
from snakebert.training.trainers import build_trainer  # noqa: E402

BERT_BASE = {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072}
TINY = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64}
VOCAB = 32000
ARMS = ("ours", "plain")
FIGURES = ("samples_per_second", "tokens_per_second", "mfu")


class MaskedBlocks:
    """Random packed blocks, masked once with the pipeline's masking (k positions per block, 80/10/10): the same
    masked tokens for both paths. `ours` holds what our collator gives (input_ids, masked_positions, labels at
    the k positions); `plain` what BertForMaskedLM takes (input_ids, labels of every position, -100 elsewhere)."""

    def __init__(self, count: int, seq: int, vocab: int) -> None:
        ids = np.random.default_rng(0).integers(5, vocab, (count, seq), dtype=np.uint16)
        k = predictions_per_block(seq, 0.15, None)
        keys = [(0, 0, block) for block in range(count)]
        inputs, positions, labels = mask_blocks(ids, keys, k, np.arange(5), 4, vocab)
        full = np.full(ids.shape, IGNORED, dtype=np.int64)
        np.put_along_axis(full, positions, labels, axis=1)  # a padding slot's label is IGNORED: nothing asked
        inputs, positions, labels = torch.from_numpy(inputs), torch.from_numpy(positions), torch.from_numpy(labels)
        self.paths = {
            "ours": {"input_ids": inputs, "masked_positions": positions, "labels": labels},
            "plain": {"input_ids": inputs, "labels": torch.from_numpy(full)},
        }

    def path(self, name: str) -> "Items":
        return Items(self.paths[name])


class Items:
    """One path's items; a key is an index or (epoch, index), as blocks.EpochSampler yields."""

    def __init__(self, tensors: dict[str, torch.Tensor]) -> None:
        self.tensors = tensors

    def __len__(self) -> int:
        return len(self.tensors["input_ids"])

    def __getitem__(self, key: int | tuple[int, int]) -> dict:
        index = key[1] if isinstance(key, tuple) else key
        return {name: tensor[index] for name, tensor in self.tensors.items()}


def pipeline_settings(args) -> dict:
    """The pipeline's pretrain settings (schema defaults) for this run; no evaluation or checkpoint inside it."""
    never = args.steps + 1
    return {**schema_defaults("pretrain"), "max_steps": args.steps, "per_device_train_batch_size": args.batch,
            "warmup_steps": 0, "logging_steps": never, "save_steps": never, "eval_steps": never,
            "shuffle_seed": 34}  # fmt: skip


def trainer_for(name: str, config: BertConfig, data: MaskedBlocks, args) -> Trainer:
    output_dir = tempfile.mkdtemp()
    items = data.path(name)
    if name == "ours":
        backend = "cuda" if args.device == "cuda" else "cpu"
        validation = Subset(items, range(args.batch))  # evaluated once, after the timed steps
        settings = pipeline_settings(args)
        phase = plan_phases(settings, args.seq)[0]
        job = TrainingJob("", "", {}, settings, backend=backend, checkpoints=output_dir)
        model = masked_positions_model(config, args.init_from and str(args.init_from))
        return build_trainer(job, settings, phase, output_dir, model, (None, None), items, validation)
    arguments = TrainingArguments(
        output_dir=output_dir, max_steps=args.steps, per_device_train_batch_size=args.batch,
        bf16=args.device == "cuda", use_cpu=args.device == "cpu", report_to=[], disable_tqdm=True,
        save_strategy="no", logging_strategy="no", dataloader_drop_last=True,
    )  # fmt: skip
    model = BertForMaskedLM.from_pretrained(args.init_from) if args.init_from else BertForMaskedLM(config)
    return Trainer(model=model, args=arguments, train_dataset=items)


def flops_per_token(config: BertConfig, seq: int) -> float:
    """Training FLOPs per token: 6 x the matmul parameters plus attention (12 x layers x hidden x seq)."""
    hidden, layers = config.hidden_size, config.num_hidden_layers
    per_layer = 4 * hidden * hidden + 2 * hidden * config.intermediate_size
    return 6 * (layers * per_layer + hidden * config.vocab_size) + 12 * layers * hidden * seq


def run(name: str, config: BertConfig, data: MaskedBlocks, args) -> dict:
    torch.manual_seed(0)
    trainer = trainer_for(name, config, data, args)
    clock = StepClock(args.warmup)
    trainer.add_callback(clock)
    trainer.train()
    del trainer  # the next repetition starts from a free device
    gc.collect()
    if args.device == "cuda":
        torch.cuda.empty_cache()
    seconds = clock.seconds()
    samples = (args.steps - args.warmup) * args.batch / seconds
    tokens = samples * args.seq
    mfu = tokens * flops_per_token(config, args.seq) / (args.peak_tflops * 1e12)
    return {"samples_per_second": samples, "tokens_per_second": tokens, "mfu": mfu, "timed_seconds": seconds}


def commit() -> str | None:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or None  # None: not a git checkout (a copy of the tree)


def report(runs: dict[str, list[dict]], config: BertConfig, args) -> dict:
    """Each repetition's figures, each path's medians, and ours/plain repetition by repetition."""
    device = torch.cuda.get_device_name() if args.device == "cuda" else "cpu"
    median = {arm: {key: statistics.median(run[key] for run in runs[arm]) for key in FIGURES} for arm in ARMS}
    ours_over_plain = {
        key: ratios([run[key] for run in runs["ours"]], [run[key] for run in runs["plain"]])
        for key in ("samples_per_second", "tokens_per_second")
    }
    return {
        "device": device, "torch": torch.__version__, "transformers": transformers.__version__, "commit": commit(),
        "settings": {key: getattr(args, key) for key in ("steps", "warmup", "batch", "seq", "repeats", "tiny")},
        "init_from": args.init_from and str(args.init_from), "threads": torch.get_num_threads(),
        "gflop_per_token": flops_per_token(config, args.seq) / 1e9, "runs": runs, "median": median,
        "ours/plain": ours_over_plain, "goal": "ours/plain samples/s median >= 1.3",
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=80)
    parser.add_argument("--warmup", type=int, default=20, help="steps left out of the timing")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repetitions of both paths")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--tiny", action="store_true", help="a tiny model instead of BERT-base (smoke runs)")
    parser.add_argument("--peak-tflops", type=float, default=989.0, help="the GPU's dense bf16 peak")
    parser.add_argument("--init-from", type=Path, help="a BERT base folder both paths start from")
    parser.add_argument("--out", type=Path, help="also write the report here (JSON)")
    args = parser.parse_args()
    if not 0 < args.warmup < args.steps:
        parser.error("--warmup must be between 0 and --steps")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.init_from and args.tiny:
        parser.error("--tiny and --init-from are exclusive: a base has its own dimensions")
    if args.init_from:
        config = BertConfig.from_pretrained(args.init_from, attn_implementation="sdpa")
    else:
        config = BertConfig(vocab_size=VOCAB, max_position_embeddings=max(args.seq, 512), **(TINY if args.tiny else
                            BERT_BASE), attn_implementation="sdpa")  # fmt: skip
    data = MaskedBlocks(args.steps * args.batch, args.seq, config.vocab_size)
    runs = interleaved(ARMS, args.repeats, lambda arm: run(arm, config, data, args))
    text = json.dumps(report(runs, config, args), indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
