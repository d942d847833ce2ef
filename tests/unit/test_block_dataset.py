"""The training set's indices (snakebert/training/block_dataset.py): the blocks of every shard numbered in corpus
order, and the held-out ranges kept out of each packing."""

from dataclasses import fields

from snakebert.data.manifest_view import Manifest, ManifestShard, PackedShard, Packing, Split, ValidationRange
from snakebert.training.block_dataset import split_indices


def stub(cls, **values):
    """A view of `cls` with `values`, every other field None: the parts split_indices does not read."""
    return cls(**{**dict.fromkeys(field.name for field in fields(cls)), **values})


def test_split_indices_number_blocks_across_shards_and_hold_out_the_ranges():
    manifest = stub(
        Manifest,
        block_size=4,
        shards=tuple(stub(ManifestShard, blocks=blocks) for blocks in (5, 0, 4)),
        split=stub(
            Split, validation=(ValidationRange(shard=0, start=1, stop=3), ValidationRange(shard=2, start=3, stop=4))
        ),
        packings=tuple(  # the same tokens (20, 0 and 16) in blocks of 2 and of 3
            stub(Packing, block_size=size, shards=tuple(stub(PackedShard, blocks=blocks) for blocks in counts))
            for size, counts in ((2, (10, 0, 8)), (3, (6, 0, 5)))
        ),
    )
    assert split_indices(manifest, "validation").tolist() == [1, 2, 8]
    assert split_indices(manifest, "train").tolist() == [0, 3, 4, 5, 6, 7]
    # validation holds tokens 4-11 of shard 0 and 12-15 of shard 2: a phase trains on no block that overlaps them
    assert split_indices(manifest, "validation", 2).tolist() == [2, 3, 4, 5, 16, 17]
    assert split_indices(manifest, "validation", 3).tolist() == [1, 2, 3, 10]
    assert split_indices(manifest, "train", 3).tolist() == [0, 4, 5, 6, 7, 8, 9]
