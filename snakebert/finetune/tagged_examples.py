"""Word-tagging (NER-style) examples as one flat Arrow table: `text` (a sentence's words), `label` (one tag per word),
`group`, read from a CoNLL-style column file or from a table of word and tag lists (JSON Lines, Parquet, a `datasets`
split); the tags' scheme (IOB2, IOBES or plain classes) detected or checked; the task's tag names in a stable order.
Every error names the file and the line (or row) as examples.py's do, never quoting a word or a tag."""

import itertools
import re
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from ..redaction import short
from .examples import GROUP, LABEL, TEXT, Where, _first, _names, column

MAX_SENTENCE_WORDS = 1000  # more words than this: most likely a blank line between sentences is missing
DOCSTART = "-DOCSTART-"  # a CoNLL line that starts a document
SCHEMES = ("iob2", "iobes", "plain")
_FITS = {"iob2": "^(O|[BI]-.+)$", "iobes": "^(O|[BIES]-.+)$"}  # plain: no tag matches _PREFIXED
_PREFIXED = "^[BIES]-."
_ALLOWS = {
    "iob2": "O, or B- or I- before an entity type",
    "iobes": "O, or B-, I-, E- or S- before an entity type",
    "plain": "tags without a B-, I-, E- or S- prefix, each a class of its own (O the outside tag)",
}


@dataclass(frozen=True)
class ConllWhere(Where):
    """A CoNLL file as errors name it, its sentence i (a row of read_conll's table) by the line where it starts."""

    starts: tuple[int, ...] = ()

    def row(self, index: int) -> str:
        return f"line {self.starts[index]}"


def read_conll(path: str, columns: list[str], text_column: str, label_column: str) -> tuple[pa.Table, ConllWhere]:
    """The sentences of a CoNLL-style file (a word a line, its fields split on whitespace and named by `columns`,
    sentences apart by blank lines, -DOCSTART- lines between documents) as a flat table, and the ConllWhere that names
    its rows by line. A sentence's group is its document's number (0 before the first -DOCSTART-) if the file has
    documents, else its own number. Read line by line; the arrays are built at the end."""
    for key, name in (("text_column", text_column), ("label_column", label_column)):
        if name not in columns:
            raise DataError(f"{path}: {key} {name!r} is not among conll_columns ({short(', '.join(columns))})")
    text_at, label_at = columns.index(text_column), columns.index(label_column)
    words, tags, offsets, starts, documents = [], [], [0], [], []  # offsets: where each sentence ends in words
    document, has_documents, start = 0, False, None  # start: the current sentence's first line
    try:
        with open(path, "rb") as handle:
            for number, raw in itertools.chain(enumerate(handle, 1), [(None, b"")]):  # a last blank line ends all
                fields = _decoded(raw, number, path).split()
                if fields and fields[0] != DOCSTART:
                    if len(fields) != len(columns):
                        raise DataError(
                            f"{path}: line {number} has {len(fields)} fields, but conll_columns names {len(columns)}"
                        )
                    start = start or number
                    words.append(fields[text_at])
                    tags.append(fields[label_at])
                    if len(words) - offsets[-1] > MAX_SENTENCE_WORDS:
                        raise DataError(
                            f"{path}: the sentence starting on line {start} has more than {MAX_SENTENCE_WORDS} words; "
                            "is a blank line between sentences missing?"
                        )
                    continue
                if start:
                    offsets.append(len(words))
                    starts.append(start)
                    documents.append(document)
                    start = None
                if fields:  # -DOCSTART-
                    document, has_documents = document + 1, True
    except OSError as error:
        raise DataError(f"{path}: not readable ({error.strerror})") from None
    if not starts:
        raise DataError(f"{path}: no sentence (an empty file, or blank and -DOCSTART- lines alone)")
    offsets = pa.array(offsets, pa.int32())
    groups = documents if has_documents else range(len(starts))
    table = pa.table(
        {
            TEXT: pa.ListArray.from_arrays(offsets, pa.array(words, pa.string())),
            LABEL: pa.ListArray.from_arrays(offsets, pa.array(tags, pa.string())),
            GROUP: pa.array([str(group) for group in groups], pa.string()),
        }
    )
    return table, ConllWhere(path, "conll", tuple(starts))


def _decoded(raw: bytes, number: int | None, path: str) -> str:
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")  # a byte-order mark on line 1 is no part of it
    except UnicodeDecodeError as error:
        raise DataError(f"{path}: not UTF-8 text: line {number}, byte {error.start}; save the file as UTF-8") from None


def tagged_examples(table: pa.Table, columns: dict, where: str | Where) -> pa.Table:
    """The flat table of `table`'s `columns` ({text, label, group}: source column names, group optional), whose text
    and label columns hold a list of words and a list of tags (text or whole numbers) per row, one tag per word;
    `where` names the file or split in errors, and its rows (a name alone: rows counted from 0)."""
    where = where if isinstance(where, Where) else Where(where)
    if table.num_rows == 0:
        raise DataError(f"{where}: no rows (an empty file)")
    words = _lists(table, columns[TEXT], "word", where)
    tags = _lists(table, columns[LABEL], "tag", where)
    counts, tag_counts = pc.list_value_length(words), pc.list_value_length(tags)
    if pc.any(empty := pc.equal(counts, 0)).as_py():
        raise DataError(f"{where}: {where.row(_first(empty))} holds no words (an empty sentence)")
    if pc.any(unequal := pc.not_equal(counts, tag_counts)).as_py():
        row = _first(unequal)
        raise DataError(
            f"{where}: {where.row(row)} holds {counts[row].as_py()} words and {tag_counts[row].as_py()} tags; "
            "a tagging task needs one tag per word"
        )
    if pc.any(long := pc.greater(counts, MAX_SENTENCE_WORDS)).as_py():
        row = _first(long)
        raise DataError(f"{where}: {where.row(row)} holds {counts[row].as_py()} words, more than {MAX_SENTENCE_WORDS}")
    if columns.get(GROUP):
        groups = _names(column(table, columns[GROUP], where), columns[GROUP], "group", where)
    else:
        groups = pa.array([str(row) for row in range(len(table))], pa.string())
    return pa.table({TEXT: words, LABEL: tags, GROUP: groups})


def _lists(table: pa.Table, name: str, what: str, where: Where) -> pa.ListArray:
    """The column `name` as list<string>: a list in every row, every item in it present and not blank (tags may be
    whole numbers, as a JSON Lines file may hold them)."""
    values = column(table, name, where)
    kind = values.type
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)):
        raise DataError(f"{where}: column {name!r} holds {kind}, but a tagging task needs a list of {what}s per row")
    if values.null_count:
        raise DataError(f"{where}: column {name!r} has no list of {what}s in {where.row(_first(pc.is_null(values)))}")
    item = kind.value_type
    numbers = what == "tag" and pa.types.is_integer(item)
    if not (pa.types.is_string(item) or pa.types.is_large_string(item) or pa.types.is_null(item) or numbers):
        kinds = "text or whole numbers" if what == "tag" else "text"
        raise DataError(f"{where}: column {name!r} holds lists of {item}, not of {what}s as {kinds}")
    values = values.cast(pa.list_(pa.string())).combine_chunks()
    blank = pc.fill_null(pc.equal(pc.utf8_trim_whitespace(values.flatten()), ""), True)
    if pc.any(blank).as_py():
        row, position = _word_of(values, _first(blank))
        raise DataError(
            f"{where}: column {name!r} has a missing or empty {what} in {where.row(row)}, {what} {position}"
        )
    return values


def _word_of(values: pa.ListArray, item: int) -> tuple[int, int]:
    """The row of `values` that holds its flattened item `item`, and the item's position in that row (from 1)."""
    parents = pc.list_parent_indices(values)
    row = parents[item].as_py()
    return row, item - pc.index(parents, row).as_py() + 1


def tag_scheme(tags: pa.ChunkedArray, declared: str | None, where: Where) -> str:
    """The scheme (one of SCHEMES) of a list<string> label column: `declared`, or else detected (iobes if a tag is
    E- or S- prefixed, else iob2 if one is B- or I- prefixed, else plain), every tag checked to fit it."""
    if declared not in (None, *SCHEMES):
        raise DataError(f"{where}: tag scheme {declared!r} is not one of {', '.join(SCHEMES)}")
    values = tags.combine_chunks()
    items = values.flatten()
    prefixed = pc.match_substring_regex(items, _PREFIXED)
    ends = pc.match_substring_regex(items, "^[ES]-.")
    scheme = declared or ("iobes" if pc.any(ends).as_py() else "iob2" if pc.any(prefixed).as_py() else "plain")
    misfits = prefixed if scheme == "plain" else pc.invert(pc.match_substring_regex(items, _FITS[scheme]))
    if pc.any(misfits).as_py():
        row, position = _word_of(values, _first(misfits))
        how = "as declared" if declared else "detected from its prefixed tags; bare tags other than O do not mix in"
        raise DataError(
            f"{where}: the tag of word {position} in {where.row(row)} does not fit the {scheme} scheme ({how}), "
            f"which allows {_ALLOWS[scheme]}"
        )
    return scheme


def combined_scheme(schemes: dict[str, str], name: str) -> str:
    """The scheme of a task whose splits' tags follow `schemes` ({split: scheme}): an IOB2 split is valid IOBES."""
    found = set(schemes.values())
    if len(found) == 1:
        return found.pop()
    if found == {"iob2", "iobes"}:
        return "iobes"
    said = ", ".join(f"{split} {scheme}" for split, scheme in schemes.items())
    raise DataError(f"finetune task {name!r}: its splits' tags follow schemes that do not mix ({said})")


def tag_names(tables: list[pa.Table]) -> list[str]:
    """Every tag of the tables' label columns: O first, then by entity type and prefix (B, I, E, S); bare tags by
    name."""
    found = set()
    for table in tables:
        found.update(pc.unique(pc.list_flatten(table.column(LABEL))).to_pylist())
    return sorted(found, key=_tag_order)


def _tag_order(tag: str) -> tuple:
    prefixed = re.fullmatch(r"([BIES])-(.+)", tag, re.DOTALL)
    return (tag != "O", prefixed[2], "BIES".index(prefixed[1])) if prefixed else (tag != "O", tag, -1)
