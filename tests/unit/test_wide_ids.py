"""A vocabulary of more than 65,535 tokens (a continued XLM-R's or mBERT's): the token and block files hold uint32
ids and the manifest says so, and every reader takes them: the training loader and its collator, the checks before
the first step, evaluation, `datasets.Dataset.from_file` and the report's document lengths. A vocabulary that fits
stays uint16."""

import json
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
import pytest
from helpers import build_tiny_data
from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

from snakebert.data.corpus import shard_texts
from snakebert.data.manifest import read_manifest
from snakebert.errors import DataError
from snakebert.files.arrow_streams import read_table, stream_schema
from snakebert.report.data_plot import document_lengths
from snakebert.training.block_dataset import BlockDataset
from snakebert.training.collator import BlockCollator
from snakebert.training.evaluate import evaluate
from snakebert.training.preflight import verify_blocks

SHIFT = 70_000  # every learned token's id moved past uint16's range
SPECIALS = 5  # [PAD] [UNK] [CLS] [SEP] [MASK] keep their ids
EVALUATION = {"max_blocks": 4, "batch_size": 2, "seed": 5, "mlm_probability": 0.15, "max_predictions": None}


def widen(folder: Path) -> None:
    """The trained tokenizer with SHIFT `[unusedN]` tokens between its special tokens and its learned ones."""
    spec = json.loads((folder / "tokenizer.json").read_text())
    learned = spec["model"]["vocab"]
    vocabulary = {token: index if index < SPECIALS else index + SHIFT for token, index in learned.items()}
    vocabulary.update({f"[unused{index}]": index for index in range(SPECIALS, SPECIALS + SHIFT)})
    spec["model"]["vocab"] = vocabulary
    (folder / "tokenizer.json").write_text(json.dumps(spec))


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    return build_tiny_data(tmp_path_factory.mktemp("wide-data"), edit_tokenizer=widen)


def test_the_files_of_a_vocabulary_beyond_uint16_hold_uint32_ids_the_tokenizer_gives(wide):
    tokenizer = AutoTokenizer.from_pretrained(wide.tokenizer)
    manifest = read_manifest(str(wide.manifest))
    assert len(tokenizer) > 65_535 and manifest.vocab_size == len(tokenizer) and manifest.dtype == "uint32"
    results = wide.root / "results"
    tokens = results / "tokens/texts/shard-00000.arrow"
    assert stream_schema(str(tokens)).field("input_ids").type == pa.list_(pa.uint32())
    blocks = read_table(str(results / "blocks/texts/shard-00000.arrow")).column("input_ids")
    assert blocks.type == pa.list_(pa.uint32(), 16)
    texts = [text for batch in shard_texts(str(results / "raw/texts/shard-00000.arrow")) for text in batch.to_pylist()]
    expected = [token for text in texts for token in tokenizer(text)["input_ids"]]
    flat = blocks.combine_chunks().flatten().to_numpy()
    assert flat.tolist() == expected[: len(flat)] and flat.max() > 65_535
    shard = datasets.Dataset.from_file(str(results / "blocks-8/texts/shard-00000.arrow"))
    assert shard.features["input_ids"] == datasets.List(datasets.Value("uint32"), length=8)
    assert [token for row in shard["input_ids"] for token in row] == expected[: 8 * len(shard)]
    token_shards = [str(path) for path in sorted((results / "tokens/texts").glob("*.arrow"))]
    assert document_lengths(token_shards).sum() == manifest.totals.tokens


def test_training_and_evaluation_read_uint32_blocks(wide, tmp_path):
    tokenizer = AutoTokenizer.from_pretrained(wide.tokenizer)
    manifest = read_manifest(str(wide.manifest))
    assert verify_blocks(str(wide.manifest), manifest, len(tokenizer), block_sizes=[16, 8]) > 0
    with pytest.raises(DataError, match=r"token id \d+ is not below the vocabulary size 65536"):
        verify_blocks(str(wide.manifest), manifest, 65_536)
    train = BlockDataset(manifest, wide.manifest.parent, "train", block_size=8)
    items = [train[index] for index in range(4)]
    assert items[0]["ids"].dtype == np.uint32
    batch = BlockCollator(tokenizer, 2, seed=3)(items)
    unmasked = np.stack([item["ids"] for item in items]).astype(np.int64)
    kept = np.ones(unmasked.shape, dtype=bool)
    np.put_along_axis(kept, batch["masked_positions"].numpy(), False, axis=1)
    assert (batch["input_ids"].numpy()[kept] == unmasked[kept]).all() and batch["labels"].max() > 65_535
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=16, max_position_embeddings=16)  # fmt: skip
    BertForMaskedLM(config).save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    found = evaluate(str(tmp_path / "model"), str(wide.manifest), EVALUATION)
    assert found.masked_tokens == 4 * 2 and found.chance_accuracy == 1 / len(tokenizer)


def test_a_vocabulary_that_fits_uint16_stays_uint16(tiny_data):
    manifest = read_manifest(str(tiny_data.manifest))
    assert manifest.dtype == "uint16"
    blocks = tiny_data.root / "results/blocks/texts/shard-00000.arrow"
    assert stream_schema(str(blocks)).field("input_ids").type == pa.list_(pa.uint16(), 16)
