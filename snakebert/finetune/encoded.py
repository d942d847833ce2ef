"""A task split tokenized once into fixed-length tensors (every input padded or truncated to `max_length`: one
graph), indexed as the trainers read it: `(epoch, i)` from EpochSampler, or `i`. `padded_to` repeats the first
example up to a whole number of batches, so that no evaluation batch is dropped or of another shape; predictions
past `count` are discarded."""

import math

import pyarrow as pa
import torch

from .examples import LABEL, PAIR, TEXT


class EncodedSplit(torch.utils.data.Dataset):
    def __init__(self, table: pa.Table, tokenizer, max_length: int, regression: bool, padded_to: int = 1) -> None:
        pairs = table.column(PAIR).to_pylist() if PAIR in table.column_names else None
        self.inputs = tokenizer(
            table.column(TEXT).to_pylist(),
            pairs,
            truncation=True,
            max_length=max_length,
            padding="max_length",
            return_tensors="pt",
        )
        dtype = torch.float32 if regression else torch.long
        self.labels = torch.tensor(table.column(LABEL).to_numpy(), dtype=dtype)
        self.count = len(table)
        self.size = math.ceil(self.count / padded_to) * padded_to

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, key: int | tuple[int, int]) -> dict:
        index = key[1] if isinstance(key, tuple) else key
        row = index if index < self.count else 0
        return {**{name: values[row] for name, values in self.inputs.items()}, "labels": self.labels[row]}
