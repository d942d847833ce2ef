"""How token ids are stored: one column, `input_ids`, of uint16 for a vocabulary of at most 65,535 tokens (about 2
bytes a token), of uint32 above that (a continued XLM-R has 250,002 tokens, mBERT 119,547). A token shard holds a
list of ids per document (one flat buffer and the documents' offsets), a block file a fixed-size list per block of
`block_size` tokens, of the token shard's type. The manifest declares the column and dtype, and the readers check
each record batch against it."""

from typing import Protocol

import numpy as np
import pyarrow as pa

from ..errors import DataError

COLUMN = "input_ids"
UINT16_VOCAB = int(np.iinfo(np.uint16).max)  # the largest vocabulary stored as uint16


def ids_dtype(vocab_size: int) -> np.dtype:
    """The dtype of the token ids of a vocabulary of `vocab_size` tokens: uint16 up to 65,535, uint32 above."""
    return np.dtype(np.uint16 if vocab_size <= UINT16_VOCAB else np.uint32)


def token_schema(vocab_size: int) -> pa.Schema:
    """A token shard's: Arrow keeps `list<uint16>` as one flat uint16 buffer plus int32 document offsets."""
    ids = pa.from_numpy_dtype(ids_dtype(vocab_size))
    return pa.schema([(COLUMN, pa.list_(ids))], metadata={"vocab_size": str(vocab_size)})


def block_schema(block_size: int, dtype: np.dtype) -> pa.Schema:
    """A block file's: `fixed_size_list<uint16>[block_size]` (or uint32), a row a block."""
    return pa.schema([(COLUMN, pa.list_(pa.from_numpy_dtype(dtype), block_size))])


class BlockLayout(Protocol):
    """What a reader of blocks takes from the manifest (data/manifest_view.Manifest): the column, its dtype, the
    block size."""

    column: str
    dtype: str
    block_size: int


def block_ids(batch: pa.RecordBatch, path, manifest: BlockLayout, block_size: int | None = None) -> pa.Array:
    """The flat token ids of a record batch of blocks, refused (naming `path`) unless their block size (the
    manifest's, or the packing's `block_size`) and dtype are the manifest's."""
    blocks = batch.column(manifest.column)
    expected = block_size or manifest.block_size
    if blocks.type.list_size != expected:
        raise DataError(f"{path}: blocks of {blocks.type.list_size} tokens, the manifest says {expected}")
    if blocks.type.value_type != pa.from_numpy_dtype(np.dtype(manifest.dtype)):
        raise DataError(f"{path}: token ids of type {blocks.type.value_type}, the manifest says {manifest.dtype}")
    return blocks.flatten()
