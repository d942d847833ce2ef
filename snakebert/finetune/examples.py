"""Labelled examples as one flat Arrow table (`text`, `text_pair` for sentence pairs, `label`, `group`), read from a
task's CSV, JSON Lines or Parquet files or from a `datasets` split, with every column and label checked: a column
named twice, a file of no rows, a missing or empty cell of a label or group, a label or group that is a list or an
object, true/false where a number is asked, each named with its file and the row as an editor shows it (Where),
never quoting a cell."""

import csv
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError, first_line
from ..redaction import short

TEXT, PAIR, LABEL, GROUP = "text", "text_pair", "label", "group"


@dataclass(frozen=True)
class Where:
    """The file or split examples come from, as errors name it, and a row of it as an editor shows it: the line of a
    CSV file (its header is line 1; a quoted cell may span lines) or of a JSON Lines file (whose blank lines are
    skipped, as the reader skips them), else the row counted from 0. The lines are counted only for an error."""

    name: str
    file_format: str | None = None

    def __str__(self) -> str:
        return self.name

    def row(self, index: int) -> str:
        if self.file_format not in ("csv", "jsonl"):
            return f"row {index} (counted from 0)"
        with open(self.name, newline="", encoding="utf-8", errors="replace") as handle:
            if self.file_format == "jsonl":
                starts = [number for number, line in enumerate(handle, 1) if line.strip()]
            else:
                csv.field_size_limit(max(csv.field_size_limit(), os.path.getsize(self.name) + 1))
                reader, starts, line = csv.reader(handle), [], 1
                for record in reader:  # a record starts on the line after the previous one ends; blank lines skipped
                    starts += [line] if record else []
                    line = reader.line_num + 1
                starts = starts[1:]  # the first record is the header
        return f"line {starts[index]}"


def read_file(path: str, file_format: str) -> pa.Table:
    """A task's CSV, JSON Lines or Parquet file as read, every row in one table."""
    import pyarrow.csv
    import pyarrow.json
    import pyarrow.parquet

    readers = {
        "csv": lambda block: pyarrow.csv.read_csv(path, read_options=pyarrow.csv.ReadOptions(block_size=block)),
        "jsonl": lambda block: pyarrow.json.read_json(path, read_options=pyarrow.json.ReadOptions(block_size=block)),
        "parquet": lambda block: pyarrow.parquet.read_table(path),
    }
    try:
        return readers[file_format](max(1 << 20, min(os.path.getsize(path) + 1, (1 << 31) - 1)))  # the longest row
    except (pa.ArrowException, OSError) as error:
        message = without_cells(first_line(error, type(error).__name__), path)
        raise DataError(f"{path}: not a readable {file_format} file ({message})") from None


def without_cells(message: str, path: str) -> str:
    """A reader's reason, with no cell of the file in it: a CSV row of the wrong width, which pyarrow quotes, is
    named by its line instead; a value in quotes is left out."""
    width = re.search(r"Expected (\d+) columns, got \d+", message)
    if width:
        line = _line_of_width(path, int(width.group(1)))
        return width.group(0) + (f" on line {line}" if line else "")
    return re.sub(r"'[^']*'", "'...'", message)


def _line_of_width(path: str, cells: int) -> int | None:
    """The line (as an editor counts it) where the first CSV record of another width than `cells` starts."""
    with open(path, newline="", encoding="utf-8", errors="replace") as handle:
        csv.field_size_limit(max(csv.field_size_limit(), os.path.getsize(path) + 1))
        reader, line = csv.reader(handle), 1
        for record in reader:
            if record and len(record) != cells:
                return line
            line = reader.line_num + 1
    return None


def column(table: pa.Table, name: str, where: str) -> pa.ChunkedArray:
    if name not in table.column_names:
        raise DataError(f"{where}: no column {name!r} (columns: {short(', '.join(table.column_names))})")
    if table.column_names.count(name) > 1:
        raise DataError(f"{where}: column {name!r} is named {table.column_names.count(name)} times in its header")
    return table.column(name)


def _first(mask: pa.ChunkedArray) -> int:
    return pc.index(mask, True).as_py()


def _names(values: pa.ChunkedArray, name: str, what: str, where: Where) -> pa.ChunkedArray:
    """The column `name` of names (class labels, groups) as text: every cell present and not empty, none a list or an
    object."""
    if values.null_count:
        raise DataError(f"{where}: column {name!r} has no {what} in {where.row(_first(pc.is_null(values)))}")
    if pa.types.is_nested(values.type):
        raise DataError(f"{where}: {what} column {name!r} holds {values.type}, not one name per row")
    names = values.cast(pa.string())
    if pc.any(pc.equal(names, "")).as_py():
        raise DataError(f"{where}: column {name!r} has an empty {what} in {where.row(_first(pc.equal(names, '')))}")
    return names


def _not_utf8(values: pa.ChunkedArray, name: str, where: Where) -> DataError:
    """The first cell of a binary column that is not UTF-8, by row and byte (a file saved in Latin-1, say)."""
    for row, cell in enumerate(values.to_pylist()):
        try:
            (cell or b"").decode("utf-8")
        except UnicodeDecodeError as error:
            return DataError(
                f"{where}: column {name!r} is not UTF-8 text: {where.row(row)}, byte {error.start} of its cell; save "
                "the file as UTF-8"
            )
    return DataError(f"{where}: column {name!r} holds {values.type}, not text")


def _texts(table: pa.Table, name: str, where: Where) -> pa.ChunkedArray:
    values = column(table, name, where)
    if pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type):
        raise _not_utf8(values, name, where)
    if pa.types.is_dictionary(values.type):  # pandas' categorical: its values, as pretraining sources read them
        values = values.cast(values.type.value_type)
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        raise DataError(f"{where}: column {name!r} holds {values.type}, not text")
    if values.null_count:
        raise DataError(f"{where}: column {name!r} has no text in {where.row(_first(pc.is_null(values)))}")
    return values.cast(pa.string())


def class_labels(values: pa.ChunkedArray, name: str, where: Where) -> pa.ChunkedArray:
    """A label column of class names, as text (whole numbers as their digits: 1.0 is the class 1)."""
    if pa.types.is_floating(values.type) and not pc.all(pc.equal(values, pc.floor(values))).as_py():
        raise DataError(f"{where}: label column {name!r} holds numbers with fractions; set problem: regression")
    if pa.types.is_floating(values.type):  # 0.0 and 1.0: the classes 0 and 1
        values = values.cast(pa.int64())
    return _names(values, name, "label", where)


def number_labels(values: pa.ChunkedArray, name: str, where: Where) -> pa.ChunkedArray:
    """A label column of finite numbers, as float64."""
    if values.null_count:
        raise DataError(f"{where}: column {name!r} has no label in {where.row(_first(pc.is_null(values)))}")
    if pa.types.is_boolean(values.type):
        raise DataError(f"{where}: label column {name!r} holds true/false, not numbers (a regression)")
    try:
        numbers = values.cast(pa.float64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise DataError(f"{where}: label column {name!r} holds {values.type}, not numbers (a regression)") from None
    bad = np.flatnonzero(~np.isfinite(numbers))
    if len(bad):
        raise DataError(
            f"{where}: label {numbers[bad[0]]} in {where.row(bad[0])} of column {name!r} is not a finite number"
        )
    return pa.chunked_array([numbers])


def examples(table: pa.Table, columns: dict, labels: Callable, where: str | Where) -> pa.Table:
    """The flat table of `table`'s `columns` ({text, text_pair, label, group}: source column names, text_pair and
    group optional), its label column read by `labels` (the task's problem's: problems.py); `where` names the file or
    split in errors, and its rows (a name alone: rows counted from 0)."""
    where = where if isinstance(where, Where) else Where(where)
    if table.num_rows == 0:
        raise DataError(f"{where}: no rows (a header alone, or an empty file)")
    found = {TEXT: _texts(table, columns[TEXT], where)}
    if columns.get(PAIR):
        found[PAIR] = _texts(table, columns[PAIR], where)
    found[LABEL] = labels(column(table, columns[LABEL], where), columns[LABEL], where)
    if columns.get(GROUP):
        found[GROUP] = _names(column(table, columns[GROUP], where), columns[GROUP], "group", where)
    else:
        found[GROUP] = pa.chunked_array([pa.array([str(row) for row in range(len(table))], pa.string())])
    return pa.table(found)
