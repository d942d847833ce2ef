"""Training steps/s of the real training loop (transformers' Trainer on CPU, a tiny BERT, blocks of 512), side by side:

a. ours:      the manifest's memory-mapped uint16 blocks (BlockDataset) and our collator;
b. in memory: the same masked batches built before training, handed over as they are;
c. run_mlm:   a run_mlm-style data path: `datasets.Dataset.from_file` on the same block files (int lists), with
              the same collator and model.

    python bench/train_loader.py --manifest results/dataset/manifest.json --tokenizer results/tokenizer [--steps N]

Steps/s from the end of the first step to the end of the last (bench/step_clock.py's StepClock: the Trainer's
set-up and the first step stay out), in interleaved repetitions (a, b, c, then c, b, a, ...), median; goals:
a/b >= 0.97 and a/c >= 1.0.
"""

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from step_clock import StepClock, interleaved, ratios  # noqa: E402
from transformers import AutoTokenizer, Trainer, TrainingArguments, set_seed  # noqa: E402

from snakebert.data.manifest import read_manifest  # noqa: E402
from snakebert.training.block_dataset import BlockDataset  # noqa: E402
from snakebert.training.collator import BlockCollator  # noqa: E402
from snakebert.training.masking import predictions_per_block  # noqa: E402
from snakebert.training.model import masked_positions_model, model_config  # noqa: E402

MODEL = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512}
BATCH = 8


class Prebuilt:
    """Masked batches built up front: the loader does nothing but hand them over."""

    def __init__(self, blocks: BlockDataset, collator: BlockCollator, steps: int) -> None:
        self.batches = [collator([blocks[i] for i in range(s * BATCH, (s + 1) * BATCH)]) for s in range(steps)]

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, index: int) -> dict:
        return self.batches[index]


class Rows:
    """The rows of a `datasets.Dataset` (Python lists of ints), as run_mlm hands them to its collator, in the
    items our collator takes (the row's index stands for its block number)."""

    def __init__(self, dataset) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> dict:
        return {"ids": np.asarray(self.dataset[index]["input_ids"], dtype=np.uint16), "block": index, "epoch": 0}


def steps_per_second(tokenizer, dataset, collator, batch_size: int, steps: int) -> float:
    set_seed(0)
    model = masked_positions_model(model_config(MODEL, tokenizer))
    args = TrainingArguments(
        output_dir=tempfile.mkdtemp(), max_steps=steps, per_device_train_batch_size=batch_size, use_cpu=True,
        report_to=[], disable_tqdm=True, save_strategy="no", logging_strategy="no", remove_unused_columns=False,
        dataloader_num_workers=0, seed=0,
    )  # fmt: skip
    trainer = Trainer(model=model, args=args, data_collator=collator, train_dataset=dataset)
    clock = StepClock(warmup=1)
    trainer.add_callback(clock)
    trainer.train()
    return clock.steps_per_second()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    if args.steps < 2:
        parser.error("--steps must be at least 2 (the first step is left out of the timing)")
    import datasets

    torch.set_num_threads(2)
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    manifest, folder = read_manifest(args.manifest), Path(args.manifest).parent
    blocks = BlockDataset(manifest, folder, "train")
    collator = BlockCollator(tokenizer, predictions_per_block(blocks.block_size, 0.15, None), seed=42)
    prebuilt = Prebuilt(blocks, collator, args.steps)
    files = [str(folder / shard.path) for shard in manifest.shards]
    rows = Rows(datasets.concatenate_datasets([datasets.Dataset.from_file(file) for file in files]))
    paths = {
        "ours": lambda: steps_per_second(tokenizer, blocks, collator, BATCH, args.steps),
        "in_memory": lambda: steps_per_second(tokenizer, prebuilt, lambda items: items[0], 1, args.steps),
        "run_mlm": lambda: steps_per_second(tokenizer, rows, collator, BATCH, args.steps),
    }
    runs = interleaved(list(paths), args.reps, lambda path: paths[path]())
    median = {name: statistics.median(values) for name, values in runs.items()}
    print(json.dumps({
        "steps_per_second": median,
        "steps_per_second_runs": runs,
        "ours/in_memory (goal >= 0.97)": median["ours"] / median["in_memory"],
        "ours/run_mlm (goal >= 1.0)": median["ours"] / median["run_mlm"],
        "ours/in_memory per repetition": ratios(runs["ours"], runs["in_memory"]),
        "ours/run_mlm per repetition": ratios(runs["ours"], runs["run_mlm"]),
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
