"""A `task` source: the text of a fine-tuning task's train split as pretraining text, task-adaptive pretraining
(TAPT) inside the DAG. Its one input is the task's prepared data folder (prepare_task's output), and its reader opens
the train split's file in it and no other, so no validation or test text can reach pretraining. A task of pairs gives
both texts of each row, the first texts, then the second ones; a task of tagged words, each sentence's words."""

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..files.arrow_streams import stream_batches
from .formats import check_lengths

TRAIN_FILE = "train.arrow"
TEXT_COLUMNS = ("text", "text_pair")  # prepare_task's columns (finetune/examples.py)


def task_data(task: str) -> str:
    """The folder prepare_task writes the task's splits into."""
    return f"results/finetune/{task}/data"


def read_task_text(folder: str, limit: int) -> Iterator[pa.Array]:
    """The train split's texts, column by column, in row order; one longer than `limit` characters refused by row."""
    path = str(Path(folder) / TRAIN_FILE)
    for column in TEXT_COLUMNS:
        row = 0
        for batch in stream_batches(path, "task split"):
            if column not in batch.schema.names:
                break
            texts = batch.column(column)
            if pa.types.is_list(texts.type):  # a sentence of tagged words: its words, a space between two
                texts = pc.binary_join(texts, " ")
            yield check_lengths(texts, limit, f"{path}: column {column!r}", row)
            row += batch.num_rows
