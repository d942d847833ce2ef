"""The training set's indices (snakebert/training/block_dataset.py): the blocks of every shard numbered in corpus
order, and the held-out ranges kept out of each packing."""

from snakebert.training.block_dataset import split_indices


def test_split_indices_number_blocks_across_shards_and_hold_out_the_ranges():
    manifest = {
        "block_size": 4,
        "shards": [{"blocks": 5}, {"blocks": 0}, {"blocks": 4}],
        "split": {"validation": [{"shard": 0, "start": 1, "stop": 3}, {"shard": 2, "start": 3, "stop": 4}]},
        "packings": [  # the same tokens (20, 0 and 16) in blocks of 2 and of 3
            {"block_size": 2, "shards": [{"blocks": 10}, {"blocks": 0}, {"blocks": 8}]},
            {"block_size": 3, "shards": [{"blocks": 6}, {"blocks": 0}, {"blocks": 5}]},
        ],
    }
    assert split_indices(manifest, "validation").tolist() == [1, 2, 8]
    assert split_indices(manifest, "train").tolist() == [0, 3, 4, 5, 6, 7]
    # validation holds tokens 4-11 of shard 0 and 12-15 of shard 2: a phase trains on no block that overlaps them
    assert split_indices(manifest, "validation", 2).tolist() == [2, 3, 4, 5, 16, 17]
    assert split_indices(manifest, "validation", 3).tolist() == [1, 2, 3, 10]
    assert split_indices(manifest, "train", 3).tolist() == [0, 4, 5, 6, 7, 8, 9]
