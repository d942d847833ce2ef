"""Masked language modelling inputs from packed blocks: BERT's 80/10/10 masking, vectorised in torch."""

import numpy as np
import torch


def mask_tokens(
    ids: torch.Tensor,
    probability: float,
    special_ids: torch.Tensor,
    mask_id: int,
    vocab_size: int,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Choose `probability` of the non-special tokens; of those 80% -> [MASK], 10% -> random, 10% kept.

    Returns (inputs, labels) with labels -100 where no prediction is asked.
    """
    chosen = torch.rand(ids.shape, generator=generator) < probability
    chosen &= ~torch.isin(ids, special_ids)
    labels = torch.where(chosen, ids, torch.full_like(ids, -100))
    roll = torch.rand(ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, ids.shape, generator=generator)
    inputs = torch.where(chosen & (roll < 0.8), torch.full_like(ids, mask_id), ids)
    inputs = torch.where(chosen & (roll >= 0.8) & (roll < 0.9), random_ids, inputs)
    return inputs, labels


class BlockCollator:
    """Stack uint16 blocks into an int64 batch and mask it. Every position is a real token, so the
    attention mask (all ones) and token type ids (all zeros) are the model's defaults and not passed."""

    def __init__(self, tokenizer, probability: float, generator: torch.Generator | None = None) -> None:
        self.probability = probability
        self.special_ids = torch.tensor(sorted(tokenizer.all_special_ids))
        self.mask_id = tokenizer.mask_token_id
        self.vocab_size = len(tokenizer)
        self.generator = generator

    def __call__(self, blocks: list[np.ndarray]) -> dict[str, torch.Tensor]:
        ids = torch.from_numpy(np.stack(blocks).astype(np.int64))
        inputs, labels = mask_tokens(
            ids, self.probability, self.special_ids, self.mask_id, self.vocab_size, self.generator
        )
        return {"input_ids": inputs, "labels": labels}
