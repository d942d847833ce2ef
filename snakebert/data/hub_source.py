"""A `hub` source: a data set of the Hugging Face Hub (or a local folder of its data files) read by one ingest job
per shard. A data set stored as Parquet, as the Hub's own conversion (`revision: refs/convert/parquet`) and most
data sets are, is split by row groups: `shards` is independent of the number of files, each job reads a contiguous
run of row groups in corpus order, and the same shard always holds the same rows. Other data files are split by
file, through `datasets` streaming."""

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DataError
from .formats import BATCH_DOCS, check_lengths, parquet_texts


def describe(source: dict) -> str:
    return f"Hub data set {source['path']!r} (config {source.get('config')}, split {source['split']})"


def row_group_shares(rows: list[int], shards: int) -> list[int]:
    """For row groups of `rows` rows each, in corpus order, the shard of each: contiguous runs of about equal rows
    (a row group goes to the shard its first row falls in)."""
    starts = np.cumsum([0, *rows[:-1]])
    total = max(sum(rows), 1)
    return [int(start * shards // total) for start in starts]


def _data_files(source: dict) -> list[str]:
    import datasets

    builder = datasets.load_dataset_builder(source["path"], source.get("config"), revision=source.get("revision"))
    files = (builder.config.data_files or {}).get(source["split"])
    if files is None:
        raise DataError(f"{describe(source)}: no data files for split {source['split']!r}")
    return list(files)


def _open(url: str):
    import fsspec

    filesystem, path = fsspec.core.url_to_fs(url)
    return filesystem.open(path, "rb")


def _parquet_share(source: dict, files: list[str], shard: int, limit: int) -> Iterator[pa.Array]:
    """This shard's row groups of the data set's Parquet files, in corpus order."""
    name, column = describe(source), source["text_column"]
    groups = []  # (file, row group, rows) over all files, in corpus order
    for url in files:
        with _open(url) as handle:
            metadata = pq.ParquetFile(handle).metadata
        groups += [(url, index, metadata.row_group(index).num_rows) for index in range(metadata.num_row_groups)]
    if len(groups) < source["shards"]:
        raise DataError(
            f"{name} has {len(groups)} Parquet row groups; `shards: {source['shards']}` must not exceed that"
        )
    owners = row_group_shares([rows for _, _, rows in groups], source["shards"])
    mine = [(url, index) for (url, index, _), owner in zip(groups, owners, strict=True) if owner == shard]
    for url in dict.fromkeys(url for url, _ in mine):
        with _open(url) as handle:
            row_groups = [index for file, index in mine if file == url]
            yield from parquet_texts(pq.ParquetFile(handle), column, f"{name}, {url}", limit, row_groups)


def _streamed_share(source: dict, shard: int, limit: int) -> Iterator[pa.Array]:
    """This shard's data files, through `datasets` streaming (data files that are not Parquet)."""
    import datasets

    name, column = describe(source), source["text_column"]
    dataset = datasets.load_dataset(
        source["path"], source.get("config"), split=source["split"], revision=source.get("revision"), streaming=True
    )
    if dataset.num_shards < source["shards"]:
        raise DataError(
            f"{name} has {dataset.num_shards} data files that are not Parquet; "
            f"`shards: {source['shards']}` must not exceed that"
        )
    row = 0
    for batch in dataset.shard(source["shards"], shard).iter(batch_size=BATCH_DOCS):
        if column not in batch:
            raise DataError(f"{name}: no text column {column!r} (columns: {', '.join(batch)})")
        yield check_lengths(pa.array(batch[column], pa.string()), limit, f"{name}, shard {shard}", row)
        row += len(batch[column])


def read_hub(source: dict, shard: int, limit: int) -> Iterator[pa.Array]:
    """Batches of one shard's texts; any failure to reach or read the data set is a DataError naming it."""
    try:
        files = _data_files(source)
        if files and all(file.endswith(".parquet") for file in files):
            yield from _parquet_share(source, files, shard, limit)
        else:
            yield from _streamed_share(source, shard, limit)
    except DataError:
        raise
    except Exception as error:  # noqa: BLE001 - any failure to reach or read the Hub is reported the same way
        raise DataError(f"could not load {describe(source)}: {type(error).__name__}: {error}") from None
