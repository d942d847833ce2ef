"""Labelled examples as one flat Arrow table (`text`, `text_pair` for sentence pairs, `label`, `group`), read from a
task's CSV, JSON Lines or Parquet files or from a `datasets` split, with every column and label checked."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError, first_line

TEXT, PAIR, LABEL, GROUP = "text", "text_pair", "label", "group"


def _read(path: str, file_format: str) -> pa.Table:
    import pyarrow.csv
    import pyarrow.json
    import pyarrow.parquet

    readers = {"csv": pyarrow.csv.read_csv, "jsonl": pyarrow.json.read_json, "parquet": pyarrow.parquet.read_table}
    try:
        return readers[file_format](path)
    except (pa.ArrowException, OSError) as error:
        message = first_line(error, type(error).__name__)
        raise DataError(f"{path}: not a readable {file_format} file ({message})") from None


def column(table: pa.Table, name: str, where: str) -> pa.ChunkedArray:
    if name not in table.column_names:
        raise DataError(f"{where}: no column {name!r} (columns: {', '.join(table.column_names)})")
    return table.column(name)


def _texts(table: pa.Table, name: str, where: str) -> pa.ChunkedArray:
    values = column(table, name, where)
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        raise DataError(f"{where}: column {name!r} holds {values.type}, not text")
    if values.null_count:
        row = pc.index(pc.is_null(values), True).as_py()
        raise DataError(f"{where}: column {name!r} has no text in row {row}")
    return values.cast(pa.string())


def _labels(table: pa.Table, name: str, problem: str, where: str) -> pa.ChunkedArray:
    values = column(table, name, where)
    if values.null_count:
        row = pc.index(pc.is_null(values), True).as_py()
        raise DataError(f"{where}: column {name!r} has no label in row {row}")
    if problem == "classification":
        if pa.types.is_floating(values.type):
            raise DataError(f"{where}: label column {name!r} holds numbers with fractions; set problem: regression")
        return values.cast(pa.string())
    try:
        numbers = values.cast(pa.float64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise DataError(f"{where}: label column {name!r} holds {values.type}, not numbers (a regression)") from None
    bad = np.flatnonzero(~np.isfinite(numbers))
    if len(bad):
        raise DataError(f"{where}: label {numbers[bad[0]]} in row {bad[0]} of column {name!r} is not a finite number")
    return pa.chunked_array([numbers])


def examples(table: pa.Table, columns: dict, problem: str, where: str) -> pa.Table:
    """The flat table of `table`'s `columns` ({text, text_pair, label, group}: source column names, text_pair and
    group optional); `where` names the file or split in errors (rows are counted from 0)."""
    found = {TEXT: _texts(table, columns[TEXT], where)}
    if columns.get(PAIR):
        found[PAIR] = _texts(table, columns[PAIR], where)
    found[LABEL] = _labels(table, columns[LABEL], problem, where)
    if columns.get(GROUP):
        found[GROUP] = column(table, columns[GROUP], where).cast(pa.string())
    else:
        found[GROUP] = pa.chunked_array([pa.array([str(row) for row in range(len(table))], pa.string())])
    return pa.table(found)


def read_examples(path: str, file_format: str, columns: dict, problem: str) -> pa.Table:
    return examples(_read(path, file_format), columns, problem, path)
