"""A task split tokenized once into fixed-length tensors (every input truncated to `max_length` less RESERVED and padded
to `max_length`: one graph), indexed as the trainers read it: `(epoch, i)` from EpochSampler, or `i`. `padded_to`
repeats the first example up to a whole number of batches, so that no evaluation batch is dropped or of another
shape; predictions past `count` are discarded. `truth` holds the labels as read, `example_outputs` the outputs of the
examples (as WordWindows has them, for a task that tags words)."""

import math

import numpy as np
import pyarrow as pa
import torch

from .examples import LABEL, PAIR, TEXT

# Every input ends in padding: transformers builds no attention mask for a batch without padding (a branch on the data,
# a second graph on a Gaudi), so a batch of texts cut at max_length would train through another graph than the rest.
RESERVED = 1


class PaddedRows(torch.utils.data.Dataset):
    """Rows of `inputs` (tensors of one shape) and `labels`, `count` of them real, repeated from row 0 up to `size`."""

    inputs: dict[str, torch.Tensor]
    labels: torch.Tensor
    count: int
    size: int

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, key: int | tuple[int, int]) -> dict:
        index = key[1] if isinstance(key, tuple) else key
        row = index if index < self.count else 0
        return {**{name: values[row] for name, values in self.inputs.items()}, "labels": self.labels[row]}


class EncodedSplit(PaddedRows):
    def __init__(self, table: pa.Table, tokenizer, max_length: int, regression: bool, padded_to: int = 1) -> None:
        pairs = table.column(PAIR).to_pylist() if PAIR in table.column_names else None
        found = tokenizer(table.column(TEXT).to_pylist(), pairs, truncation=True, max_length=max_length - RESERVED)
        self.inputs = dict(tokenizer.pad(found, padding="max_length", max_length=max_length, return_tensors="pt",
                                         padding_side="right"))  # fmt: skip
        self.truth = table.column(LABEL).to_numpy()
        self.labels = torch.tensor(self.truth, dtype=torch.float32 if regression else torch.long)
        self.count = len(table)
        self.size = math.ceil(self.count / padded_to) * padded_to

    def example_outputs(self, outputs: np.ndarray) -> np.ndarray:
        """Each example's answer (or features): its row's, the padding rows left out."""
        return outputs[: self.count]

    def kept(self, hidden: torch.Tensor, mask: torch.Tensor, start: int) -> np.ndarray:
        """The linear probe's features of a batch of rows (from `start`): each row's last hidden states averaged over
        its tokens, the padding left out."""
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        return ((hidden * weights).sum(1) / weights.sum(1)).float().cpu().numpy()

    def unit_features(self, batches: list[np.ndarray]) -> np.ndarray:
        """Every example's features, from the batches' `kept` features in order."""
        return np.concatenate(batches)[: self.count]
