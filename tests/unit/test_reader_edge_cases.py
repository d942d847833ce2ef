"""The readers on inputs seen in the wild: old Mac line ends in `lines` files, and text columns that are not
plain `string` (a pandas categorical is a dictionary column; newer Arrow writers use `string_view`)."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import MAX_DOC_CHARS

from snakebert.data.formats import read_files
from snakebert.errors import DataError

DOCS = ["first line", "second line", "first line", "third"]


def documents(file_format: str, path) -> list[str]:
    return [text for batch in read_files(file_format, [str(path)], "text", MAX_DOC_CHARS) for text in batch.to_pylist()]


@pytest.mark.parametrize("ending", ["\r", "\n", "\r\n"])
def test_each_line_ending_breaks_a_line(tmp_path, ending):
    path = tmp_path / "lines.txt"
    path.write_bytes(ending.join(DOCS).encode() + ending.encode())
    assert documents("lines", path) == DOCS


def write_columnar(path, column: pa.Array, file_format: str) -> None:
    table = pa.table({"text": column})
    if file_format == "parquet":
        pq.write_table(table, path)
    else:
        with pa.ipc.new_file(str(path), table.schema) as writer:
            writer.write_table(table)


@pytest.mark.parametrize("file_format", ["parquet", "arrow"])
@pytest.mark.parametrize(
    "column",
    [
        pa.array(DOCS).dictionary_encode(),
        pa.array(DOCS, pa.large_string()).dictionary_encode(),
        pa.array(DOCS, pa.string_view()),
    ],
    ids=["dictionary", "large-dictionary", "string_view"],
)
def test_text_columns_of_every_string_kind_are_read_as_text(tmp_path, file_format, column):
    path = tmp_path / f"data.{file_format}"
    write_columnar(path, column, file_format)
    assert documents(file_format, path) == DOCS


def test_a_dictionary_of_numbers_is_still_not_text(tmp_path):
    path = tmp_path / "data.arrow"
    write_columnar(path, pa.array([1, 2, 1]).dictionary_encode(), "arrow")
    with pytest.raises(DataError, match="has type dictionary<values=int64"):
        documents("arrow", path)
