"""A Hub source stored as Parquet splits by row groups: `shards` is independent of its number of files, each shard
is a contiguous run of row groups in corpus order, the same every time, and the shards together are the data set."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import MAX_DOC_CHARS

from snakebert.data.hub_source import row_group_shares
from snakebert.data.sources import read_documents
from snakebert.errors import DataError


@pytest.fixture
def parquet_folder(tmp_path):
    """Shaped like the Hub's Parquet conversion of a data set: 2 files of 12 row groups each (5 to 9 rows)."""
    folder = tmp_path / "converted"
    (folder / "data").mkdir(parents=True)
    for part in range(2):
        sizes = [5 + (group % 5) for group in range(12)]
        texts = [f"document {part}-{group}-{row}" for group, size in enumerate(sizes) for row in range(size)]
        path = folder / f"data/train-0000{part}-of-00002.parquet"
        writer = pq.ParquetWriter(path, pa.schema([("text", pa.string())]))
        start = 0
        for size in sizes:
            writer.write_table(pa.table({"text": texts[start : start + size]}))  # one row group each
            start += size
        writer.close()
    return folder


def hub_source(path, shards: int, **settings) -> dict:
    return {"name": "hub", "type": "hub", "path": str(path), "config": None, "split": "train", "revision": None,
            "text_column": "text", "shards": shards, **settings}  # fmt: skip


def read(source: dict, shard: int) -> list[str]:
    return [text for batch in read_documents(source, [], shard, MAX_DOC_CHARS) for text in batch.to_pylist()]


def test_sixteen_shards_of_two_files_are_the_whole_data_set_in_corpus_order(parquet_folder):
    whole = read(hub_source(parquet_folder, 1), 0)
    assert len(whole) == 2 * sum(5 + group % 5 for group in range(12))
    shards = [read(hub_source(parquet_folder, 16), shard) for shard in range(16)]
    assert all(shards) and [text for shard in shards for text in shard] == whole
    assert read(hub_source(parquet_folder, 16), 7) == shards[7]  # the same rows every time
    assert max(map(len, shards)) <= 3 * min(map(len, shards))  # balanced by rows, in whole row groups


def test_more_shards_than_row_groups_is_refused(parquet_folder):
    with pytest.raises(DataError, match="has 24 Parquet row groups; `shards: 25` must not exceed that"):
        read(hub_source(parquet_folder, 25), 0)


def test_a_missing_text_column_names_the_data_set_and_its_columns(parquet_folder):
    expected = f"Hub data set '{parquet_folder}'.*no text column 'content' \\(columns: text\\)"
    with pytest.raises(DataError, match=expected):
        read(hub_source(parquet_folder, 2, text_column="content"), 0)


def test_row_group_shares_are_contiguous_balanced_and_start_at_zero():
    owners = row_group_shares([10] * 8, 4)
    assert owners == [0, 0, 1, 1, 2, 2, 3, 3]
    owners = row_group_shares([1, 1, 1, 97], 2)
    assert owners == sorted(owners) and owners[0] == 0
