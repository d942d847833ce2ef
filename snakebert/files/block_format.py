"""How token ids are stored: one column, `input_ids`, of uint16 (a vocabulary of at most 65,535 tokens, about 2
bytes a token). A token shard holds a list of ids per document (one flat buffer and the documents' offsets), a
block file a fixed-size list per block of `block_size` tokens. The manifest declares the column and dtype, and the
readers check each record batch against it."""

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ..errors import DataError

if TYPE_CHECKING:
    from ..data.manifest_view import Manifest

COLUMN = "input_ids"
DTYPE = np.dtype("uint16")
MAX_VOCAB = int(np.iinfo(DTYPE).max)


def token_schema(vocab_size: int) -> pa.Schema:
    """A token shard's: Arrow keeps `list<uint16>` as one flat uint16 buffer plus int32 document offsets."""
    return pa.schema([(COLUMN, pa.list_(pa.from_numpy_dtype(DTYPE)))], metadata={"vocab_size": str(vocab_size)})


def block_schema(block_size: int) -> pa.Schema:
    """A block file's: `fixed_size_list<uint16>[block_size]`, a row a block."""
    return pa.schema([(COLUMN, pa.list_(pa.from_numpy_dtype(DTYPE), block_size))])


def block_ids(batch: pa.RecordBatch, path, manifest: "Manifest", block_size: int | None = None) -> pa.Array:
    """The flat token ids of a record batch of blocks, refused (naming `path`) unless their block size (the
    manifest's, or the packing's `block_size`) and dtype are the manifest's."""
    blocks = batch.column(manifest.column)
    expected = block_size or manifest.block_size
    if blocks.type.list_size != expected:
        raise DataError(f"{path}: blocks of {blocks.type.list_size} tokens, the manifest says {expected}")
    if blocks.type.value_type != pa.from_numpy_dtype(np.dtype(manifest.dtype)):
        raise DataError(f"{path}: token ids of type {blocks.type.value_type}, the manifest says {manifest.dtype}")
    return blocks.flatten()
