"""The training and evaluation batches: blocks stacked and masked (masking.py) into the tensors the model takes."""

import numpy as np
import torch

from .masking import BERT_CORRUPTION, mask_blocks


class BlockCollator:
    """Stack blocks (items of a BlockDataset) into an int64 batch and mask it: `input_ids` (batch, block_size),
    `masked_positions` and `labels` (batch, k). Every position is a real token, so the attention mask (all ones)
    and token type ids (all zeros) are the model's defaults and not passed."""

    def __init__(self, tokenizer, k: int, seed: int, corruption: dict = BERT_CORRUPTION) -> None:
        self.k = k
        self.seed = seed
        self.corruption = corruption
        self.special_ids = np.array(sorted(tokenizer.all_special_ids))
        self.mask_id = tokenizer.mask_token_id
        self.vocab_size = len(tokenizer)

    def __call__(self, items: list[dict]) -> dict[str, torch.Tensor]:
        ids = np.stack([item["ids"] for item in items])
        keys = [(self.seed, item["epoch"], item["block"]) for item in items]
        inputs, positions, labels = mask_blocks(
            ids, keys, self.k, self.special_ids, self.mask_id, self.vocab_size, self.corruption
        )
        return {
            "input_ids": torch.from_numpy(inputs),
            "masked_positions": torch.from_numpy(positions),
            "labels": torch.from_numpy(labels),
        }
