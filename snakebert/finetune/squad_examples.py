"""Extractive question answering examples (SQuAD) as one flat Arrow table, a row per question: `text` the question,
`text_pair` its context, `label` its gold answers (a list of {text, start}: the answer as written and the character
of the context where it starts; an empty list where the question has no answer), `id` the question's id and `group`
its article's title (the question's own id where it has no title), so that a bootstrap draws whole articles. Read from
a SQuAD v1.1 or v2.0 JSON file (read_squad) or from a table laid out as the Hub's `squad` and `squad_v2` are
(squad_table). A v1.1 task answers every question; a v2.0 task (allow_unanswerable) has questions without an answer.

Every question is checked where it is read, and an error names the file and the question (its article, paragraph
and question in the JSON file, each counted from 0, or its row) with its id, never quoting a context, question or
answer: a missing or empty context or question; an answer that is not the context's text at its answer_start, or
whose answer_start lies outside the context; a question without an answer, or an is_impossible key, in a v1.1 task;
is_impossible that contradicts the answers; a question id used twice (both places named). A question too long for the
model's windows is checked once the tokenizer has counted its pieces (check_question_lengths)."""

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..errors import DataError
from ..redaction import short
from .examples import GROUP, LABEL, PAIR, TEXT, Where, _first, _texts, column

ID = "id"
ANSWER = pa.struct([("text", pa.string()), ("start", pa.int64())])
STRING = pa.string()
SCHEMA = pa.schema([(TEXT, STRING), (PAIR, STRING), (LABEL, pa.list_(ANSWER)), (ID, STRING), (GROUP, STRING)])
V2 = "unanswerable questions are SQuAD v2.0's (a v2.0 task allows them)"


@dataclass(frozen=True)
class SquadWhere(Where):
    """A SQuAD source as errors name it, and a question of it (a row of the flat table) by its place in the JSON file
    (article, paragraph and question, each counted from 0), or else as Where names the row, and by its id."""

    places: tuple[tuple[int, int, int], ...] = ()
    ids: tuple[str, ...] = ()

    def row(self, index: int) -> str:
        place = _place(*self.places[index]) if self.places else super().row(index)
        return f"{place} (id {_quoted(self.ids[index])})"


def _place(article: int, paragraph: int, question: int) -> str:
    return f"article {article}, paragraph {paragraph}, question {question}"


def _quoted(value: str) -> str:
    return repr(short(value))


class _Questions:
    """The questions read so far, as the flat table's columns, each checked as it is added. `place` names the
    question added as the i-th (from 0) in errors; it is called only for an error."""

    def __init__(self, allow_unanswerable: bool, source: str, place: Callable[[int], str]) -> None:
        self.allow_unanswerable, self.source, self.place = allow_unanswerable, source, place
        self.columns = {name: [] for name in (TEXT, PAIR, ID, GROUP)}
        self.answers, self.answer_starts, self.offsets = [], [], [0]  # offsets: where each question's answers end
        self.seen = {}  # id: the number of the question that has it

    def add(self, qid, title, question, context, answers: list[tuple] | None, impossible) -> None:
        """One question; answers holds its (text, answer_start) pairs as read (None: no list of them), impossible its
        is_impossible value (None: it has no such key)."""
        index = len(self.columns[ID])
        if not isinstance(qid, str) or not qid.strip():
            raise DataError(f"{self.source}: {self.place(index)} has no id (a question needs an id, as text)")
        if qid in self.seen:
            raise DataError(
                f"{self.source}: question id {_quoted(qid)} is used twice: {self.place(self.seen[qid])} and "
                f"{self.place(index)}"
            )
        self.seen[qid] = index

        def named() -> str:
            return f"{self.source}: {self.place(index)} (id {_quoted(qid)})"

        if answers is None:
            raise DataError(f"{named()} has no 'answers' list of objects (an empty list where there is no answer)")
        for what, value in (("question", question), ("context", context)):
            if not isinstance(value, str) or not value.strip():
                raise DataError(f"{named()} has no {what} (a missing or empty {what}, or one that is not text)")
        if title is not None and not isinstance(title, str):
            raise DataError(f"{named()}: its article's title is not text")
        _check_answerable(bool(answers), impossible, self.allow_unanswerable, named)
        for number, (text, start) in enumerate(answers):
            _check_answer(text, start, context, lambda number=number: f"{named()}, answer {number}")
        self.columns[TEXT].append(question)
        self.columns[PAIR].append(context)
        self.answers += [text for text, _ in answers]
        self.answer_starts += [start for _, start in answers]
        self.offsets.append(len(self.answers))
        self.columns[ID].append(qid)
        self.columns[GROUP].append(title if title and title.strip() else qid)

    def table(self) -> pa.Table:
        if not self.seen:
            raise DataError(f"{self.source}: no question")
        answers = pa.StructArray.from_arrays(
            [pa.array(self.answers, pa.string()), pa.array(self.answer_starts, pa.int64())], fields=list(ANSWER)
        )
        labels = pa.ListArray.from_arrays(pa.array(self.offsets, pa.int32()), answers)
        return pa.table({**self.columns, LABEL: labels}).select(SCHEMA.names)


def _check_answerable(answered: bool, impossible, allow_unanswerable: bool, named: Callable[[], str]) -> None:
    """A v1.1 question has an answer and no is_impossible key; a v2.0 question's is_impossible, where it has one,
    says whether it has none."""
    if impossible is None:
        if not answered and not allow_unanswerable:
            raise DataError(f"{named()} has no answer: {V2}, and this task reads SQuAD v1.1, where each has one")
    elif not allow_unanswerable:
        raise DataError(f"{named()} has an is_impossible key: {V2}, and this task reads SQuAD v1.1")
    elif not isinstance(impossible, bool):
        raise DataError(f"{named()}: its is_impossible is not true or false")
    elif impossible == answered:
        said = "true, but it has answers" if answered else "false, but it has no answer"
        raise DataError(f"{named()}: its is_impossible is {said}")


def _check_answer(text, start, context: str, named: Callable[[], str]) -> None:
    if not isinstance(text, str) or not text:
        raise DataError(f"{named()} has no text (an answer needs its text, as found in the context)")
    if not isinstance(start, int) or isinstance(start, bool):
        raise DataError(f"{named()}: its answer_start is not a whole number")
    if not 0 <= start < len(context):
        raise DataError(f"{named()}: its answer_start {start} lies outside the context ({len(context)} characters)")
    if context[start : start + len(text)] != text:
        raise DataError(
            f"{named()}: its text ({len(text)} characters) is not the context's text at its answer_start {start}"
        )


def read_squad(path: str, allow_unanswerable: bool) -> tuple[pa.Table, SquadWhere]:
    """The questions of a SQuAD JSON file ({"data": [{"title", "paragraphs": [{"context", "qas": [{"id", "question",
    "answers": [{"text", "answer_start"}], "is_impossible"}]}]}]}, is_impossible in v2.0 only) as the flat table, and
    the SquadWhere that names its rows. allow_unanswerable: read as SQuAD v2.0 (questions without an answer allowed)
    rather than v1.1. The file's own `version` is not relied on."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise DataError(f"{path}: not readable ({error.strerror})") from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise DataError(f"{path}: not UTF-8 text: byte {error.start}; save the file as UTF-8") from None
    except json.JSONDecodeError as error:
        raise DataError(f"{path}: not a JSON file ({error.msg}: line {error.lineno}, column {error.colno})") from None
    places = []
    questions = _Questions(allow_unanswerable, path, lambda index: _place(*places[index]))
    for article, found in enumerate(_inner(data, "data", f"{path}: the file")):
        for paragraph, held in enumerate(_inner(found, "paragraphs", f"{path}: article {article}")):
            for number, qa in enumerate(_inner(held, "qas", f"{path}: article {article}, paragraph {paragraph}")):
                places.append((article, paragraph, number))
                if not isinstance(qa, dict):
                    raise DataError(f"{path}: {_place(*places[-1])} is not an object")
                questions.add(qa.get("id"), found.get("title"), qa.get("question"), held.get("context"),
                              _answers(qa.get("answers")), qa.get("is_impossible"))  # fmt: skip
    table = questions.table()
    return table, SquadWhere(path, "json", tuple(places), tuple(table.column(ID).to_pylist()))


def _inner(item, key: str, named: str) -> list:
    """item[key], a list, item an object."""
    if not isinstance(item, dict) or not isinstance(item.get(key), list):
        raise DataError(f"{named} has no {key!r} list (not a SQuAD file?)")
    return item[key]


def _answers(found) -> list[tuple] | None:
    """A question's answers as (text, answer_start) pairs; None if they are not a list of objects."""
    if not isinstance(found, list) or not all(isinstance(answer, dict) for answer in found):
        return None
    return [(answer.get("text"), answer.get("answer_start")) for answer in found]


def squad_table(table: pa.Table, where: str | Where, allow_unanswerable: bool) -> tuple[pa.Table, SquadWhere]:
    """The questions of a table laid out as the Hub's squad and squad_v2 (columns id, title, context, question, and
    answers: a struct of a text list and an answer_start list; a question without a title, or a table without the
    column, is its own group) as the flat table, and the SquadWhere that names its rows as `where` does, with their
    ids."""
    where = where if isinstance(where, Where) else Where(where)
    if table.num_rows == 0:
        raise DataError(f"{where}: no rows (an empty file)")
    ids, questions, contexts = (_texts(table, name, where).to_pylist() for name in ("id", "question", "context"))
    titles = _titles(table, where)
    answers = _hub_answers(column(table, "answers", where), where)
    read = _Questions(allow_unanswerable, str(where), where.row)
    for found in zip(ids, titles, questions, contexts, answers, strict=True):
        read.add(*found, None)
    return read.table(), SquadWhere(where.name, where.file_format, (), tuple(ids))


def _titles(table: pa.Table, where: Where) -> list[str | None]:
    if "title" not in table.column_names:
        return [None] * table.num_rows
    titles = column(table, "title", where)
    if not (pa.types.is_string(titles.type) or pa.types.is_large_string(titles.type) or pa.types.is_null(titles.type)):
        raise DataError(f"{where}: column 'title' holds {titles.type}, not text")
    return titles.to_pylist()


def _hub_answers(answers: pa.ChunkedArray, where: Where) -> list[list[tuple]]:
    """Each row's (text, answer_start) pairs from the Hub's answers struct of two lists."""
    kind = answers.type
    fields = {found.name: found.type for found in kind} if pa.types.is_struct(kind) else {}
    text, start = fields.get("text"), fields.get("answer_start")
    lists = text and start and pa.types.is_list(text) and pa.types.is_list(start)
    if not (lists and _holds(text, pa.types.is_string) and _holds(start, pa.types.is_integer)):
        raise DataError(
            f"{where}: column 'answers' holds {kind}, not a struct of a text list and an answer_start list of whole "
            "numbers, as the Hub's squad has it"
        )
    if answers.null_count:
        raise DataError(f"{where}: column 'answers' is empty in {where.row(_first(answers.is_null()))}")
    found = []
    for row, cell in enumerate(answers.to_pylist()):
        texts, starts = cell["text"], cell["answer_start"]
        if texts is None or starts is None or len(texts) != len(starts):
            raise DataError(f"{where}: {where.row(row)}: its answers' text and answer_start lists differ in length")
        found.append(list(zip(texts, starts, strict=True)))
    return found


def _holds(kind: pa.ListType, fits: Callable) -> bool:
    """Whether a list type's items fit (or it holds none: a JSON Lines file whose answer lists are all empty)."""
    return fits(kind.value_type) or pa.types.is_null(kind.value_type)


def check_question_lengths(
    question_pieces: np.ndarray, max_length: int, special: int, stride: int, where: Where
) -> None:
    """Refuse the first question whose pieces (question_pieces, one count per row of the flat table, special tokens
    not counted) leave no room for its context: a window of max_length pieces holds the question, the `special` tokens
    that frame a question and context pair, and more context pieces than the `stride` that consecutive windows
    share."""
    most = max_length - special - stride - 1
    too_long = np.flatnonzero(np.asarray(question_pieces) > most)
    if len(too_long):
        row = int(too_long[0])
        raise DataError(
            f"{where}: {where.row(row)}: its question is {int(question_pieces[row])} pieces long; at max_length "
            f"{max_length} a question may have at most {most} ({special} special tokens and more context pieces than "
            f"the stride of {stride} fill the rest of a window)"
        )
