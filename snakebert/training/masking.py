"""Masked language modelling inputs from packed blocks, with static shapes and no random-number history.

Every block predicts exactly `k` positions (BERT's `max_predictions_per_seq`), chosen among its non-special
tokens, each shown as [MASK], as a random token or as itself (BERT's 80/10/10 by default). A block's mask is a
pure function of (seed, epoch, block number): the same block masks the same way whatever the batch, the worker or
the point where a run was resumed.
"""

import numpy as np

IGNORED = -100  # the label of a padding prediction slot (a block with fewer than k maskable tokens)
BERT_CORRUPTION = {"mask": 0.8, "random": 0.1, "keep": 0.1}  # what every MLM evaluation masks with


def predictions_per_block(block_size: int, probability: float, max_predictions: int | None) -> int:
    """k = min(max_predictions, round(probability * block_size)), at least 1 (as BERT's create_pretraining_data)."""
    k = max(1, round(probability * block_size))
    return k if max_predictions is None else min(k, max_predictions)


def mask_blocks(
    ids: np.ndarray,
    keys: list[tuple[int, int, int]],
    k: int,
    special_ids: np.ndarray,
    mask_id: int,
    vocab_size: int,
    corruption: dict = BERT_CORRUPTION,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mask a (batch, block_size) array of token ids; `keys` holds each block's (seed, epoch, block number);
    `corruption`: the fractions of predicted positions shown as `mask`, `random` token and (the rest) kept.

    Returns (inputs, positions, labels): positions (batch, k) ascending, labels the original ids there
    (IGNORED in slots beyond a block's maskable tokens, whose position then holds an unchanged token).
    """
    batch, length = ids.shape
    scores = np.empty((batch, length))
    rolls = np.empty((batch, k))
    random_ids = np.empty((batch, k), dtype=np.int64)
    for row, key in enumerate(keys):
        generator = np.random.default_rng([int(part) for part in key])
        scores[row] = generator.random(length)
        rolls[row] = generator.random(k)
        random_ids[row] = generator.integers(vocab_size, size=k)
    special = np.isin(ids, special_ids)
    scores[special] = 2.0  # after every maskable token (scores are below 1)
    positions = np.sort(np.argsort(scores, axis=1, kind="stable")[:, :k], axis=1)
    original = np.take_along_axis(ids, positions, axis=1).astype(np.int64)
    asked = ~np.take_along_axis(special, positions, axis=1)
    masked, randomised = corruption["mask"], corruption["mask"] + corruption["random"]
    replacement = np.where(rolls < masked, mask_id, np.where(rolls < randomised, random_ids, original))
    inputs = ids.astype(np.int64)
    np.put_along_axis(inputs, positions, np.where(asked, replacement, original), axis=1)
    return inputs, positions, np.where(asked, original, IGNORED)
