"""Masking with static shapes: exactly k positions per block among the non-special tokens, 80/10/10 replacement,
and a mask that is a pure function of (seed, epoch, block); the training order a pure function of (seed, epoch)."""

import numpy as np
import pytest

from snakebert.training.block_dataset import EpochSampler
from snakebert.training.masking import IGNORED, mask_blocks, predictions_per_block

SPECIAL = np.array([0, 1, 2, 3, 4])  # [PAD] [UNK] [CLS] [SEP] [MASK]
MASK, VOCAB = 4, 1000


def blocks(count: int, length: int = 64, seed: int = 0) -> np.ndarray:
    """Blocks of random ordinary tokens with a few [CLS] ... [SEP] document boundaries."""
    ids = np.random.default_rng(seed).integers(5, VOCAB, (count, length)).astype(np.uint16)
    ids[:, ::16] = 2
    ids[:, 15::16] = 3
    return ids


def keys(count: int, seed: int = 42, epoch: int = 0, first: int = 0) -> list[tuple[int, int, int]]:
    return [(seed, epoch, first + index) for index in range(count)]


@pytest.mark.parametrize(
    ("block_size", "probability", "cap", "k"),
    [(512, 0.15, None, 77), (512, 0.15, 80, 77), (512, 0.15, 20, 20), (128, 0.15, 20, 19), (16, 0.01, None, 1)],
)
def test_predictions_per_block_is_bert_s_rule(block_size, probability, cap, k):
    assert predictions_per_block(block_size, probability, cap) == k


def test_every_block_predicts_exactly_k_ordinary_positions_in_order():
    ids = blocks(50)
    inputs, positions, labels = mask_blocks(ids, keys(50), 10, SPECIAL, MASK, VOCAB)
    assert inputs.shape == ids.shape and positions.shape == labels.shape == (50, 10)
    assert (np.diff(positions, axis=1) > 0).all()  # ascending, no position twice
    assert not np.isin(np.take_along_axis(ids, positions, axis=1), SPECIAL).any()
    assert (labels == np.take_along_axis(ids, positions, axis=1)).all()
    untouched = np.ones(ids.shape, dtype=bool)
    np.put_along_axis(untouched, positions, False, axis=1)
    assert (inputs[untouched] == ids[untouched]).all()


def test_replacement_is_80_percent_mask_10_random_10_kept():
    ids = blocks(4000)
    inputs, positions, labels = mask_blocks(ids, keys(4000), 10, SPECIAL, MASK, VOCAB)
    chosen = np.take_along_axis(inputs, positions, axis=1)
    masked = (chosen == MASK).mean()
    kept = (chosen == labels).mean()
    assert masked == pytest.approx(0.8, abs=0.01)
    assert kept == pytest.approx(0.1 + 0.1 / VOCAB, abs=0.01)
    assert 1 - masked - kept == pytest.approx(0.1, abs=0.01)


def test_a_block_masks_the_same_whatever_its_batch_and_differs_by_epoch_and_seed():
    ids = blocks(8)
    together = mask_blocks(ids, keys(8, first=100), 6, SPECIAL, MASK, VOCAB)
    alone = mask_blocks(ids[5:6], keys(1, first=105), 6, SPECIAL, MASK, VOCAB)
    for batch, single in zip(together, alone, strict=True):
        assert (batch[5:6] == single).all()
    again = mask_blocks(ids, keys(8, first=100), 6, SPECIAL, MASK, VOCAB)
    assert all((first == second).all() for first, second in zip(together, again, strict=True))
    next_epoch = mask_blocks(ids, keys(8, epoch=1, first=100), 6, SPECIAL, MASK, VOCAB)
    other_seed = mask_blocks(ids, keys(8, seed=43, first=100), 6, SPECIAL, MASK, VOCAB)
    assert not (next_epoch[1] == together[1]).all()
    assert not (other_seed[1] == together[1]).all()


def test_a_block_with_fewer_ordinary_tokens_than_k_pads_with_ignored_slots():
    ids = np.full((1, 16), 3, dtype=np.uint16)  # all [SEP] ...
    ids[0, [4, 9]] = [700, 800]  # ... but two ordinary tokens
    inputs, positions, labels = mask_blocks(ids, keys(1), 5, SPECIAL, MASK, VOCAB)
    assert positions.shape == labels.shape == (1, 5)
    asked = labels[0] != IGNORED
    assert sorted(positions[0][asked]) == [4, 9] and sorted(labels[0][asked]) == [700, 800]
    assert (inputs[0][positions[0][~asked]] == 3).all()  # padding slots change nothing


def test_epoch_order_is_a_permutation_drawn_from_seed_and_epoch():
    sampler = EpochSampler(100, seed=34)
    first = list(sampler)
    assert sorted(index for _, index in first) == list(range(100)) and {epoch for epoch, _ in first} == {0}
    assert list(EpochSampler(100, seed=34)) == first
    sampler.set_epoch(1)
    second = list(sampler)
    assert {epoch for epoch, _ in second} == {1}
    assert [index for _, index in second] != [index for _, index in first]
    assert list(EpochSampler(100, seed=35)) != first
