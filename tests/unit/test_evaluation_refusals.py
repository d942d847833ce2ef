"""An evaluation with nothing to predict says why: no validation block, or validation blocks of special tokens alone
(a tokenizer that reads none of their words), never blaming the other."""

import shutil

import numpy as np
import pyarrow as pa
import pytest
from helpers import save_tiny_model
from transformers import AutoTokenizer

from snakebert.errors import DataError
from snakebert.files.arrow_streams import read_table, stream_writer
from snakebert.training.evaluate import evaluate

EVALUATION = {"seed": 1234, "batch_size": 8, "max_blocks": 64, "mlm_probability": 0.15, "max_predictions": None}


def test_validation_blocks_of_unknown_tokens_alone_are_named_not_the_validation_fraction(tiny_data, tmp_path):
    results = shutil.copytree(tiny_data.root / "results", tmp_path / "results")
    unknown = AutoTokenizer.from_pretrained(tiny_data.tokenizer).unk_token_id
    for path in (results / "blocks").rglob("*.arrow"):
        table = read_table(str(path))
        ids = np.full(table.column("input_ids").combine_chunks().flatten().to_numpy().shape, unknown, np.uint16)
        column = pa.FixedSizeListArray.from_arrays(pa.array(ids), table.schema.field("input_ids").type.list_size)
        with stream_writer(str(path), table.schema) as writer:
            writer.write_batch(pa.record_batch([column], schema=table.schema))
    model = save_tiny_model(tiny_data.tokenizer, tmp_path / "model")
    with pytest.raises(DataError, match=r"its 4 validation blocks hold no token that masking may predict: every "
                       r"token is a special one \(.*\[UNK\].*\), so the tokenizer reads none") as refused:  # fmt: skip
        evaluate(model, str(results / "dataset/manifest.json"), EVALUATION)
    assert "validation_fraction" not in str(refused.value)
