"""SQuAD examples: v1.1 and v2.0 JSON files and Hub-style tables read into one flat table of questions, and every bad
question refused with the file and the question named (its article, paragraph and question, or its row, and its id),
never quoting a context, a question or an answer."""

import copy
import json

import numpy as np
import pyarrow as pa
import pytest

from snakebert.errors import DataError
from snakebert.finetune.examples import GROUP, LABEL, PAIR, TEXT, Where, read_file
from snakebert.finetune.squad_examples import ID, SCHEMA, check_question_lengths, read_squad, squad_table

SECRET = "Zanzibar"  # in every context and question: no error may quote it
CONTEXT = f"{SECRET} lies off the coast of Tanzania. Its capital is Stone Town."  # Tanzania at 31, Stone Town at 56
V1 = {
    "version": "1.1",
    "data": [
        {
            "title": "Zanzibar",
            "paragraphs": [
                {
                    "context": CONTEXT,
                    "qas": [
                        {"id": "q1", "question": f"Where is {SECRET}?",
                         "answers": [{"text": "Tanzania", "answer_start": 31}, {"text": "off the coast of Tanzania",
                                                                                  "answer_start": 14}]},
                        {"id": "q2", "question": f"What is the capital of {SECRET}?",
                         "answers": [{"text": "Stone Town", "answer_start": 56}]},
                    ],
                },
                {"context": "A second paragraph, with no question.", "qas": []},
            ],
        },
        {"paragraphs": [{"context": CONTEXT, "qas": [
            {"id": "q3", "question": f"{SECRET} is off which coast?",
             "answers": [{"text": "Tanzania", "answer_start": 31}]}]}]},  # an article without a title
    ],
}  # fmt: skip


def v2() -> dict:
    """V1 with is_impossible on every question, and one unanswerable question added."""
    data = copy.deepcopy(V1)
    data["version"] = "v2.0"
    questions = data["data"][0]["paragraphs"][0]["qas"]
    for question in questions:
        question["is_impossible"] = False
    questions.append({"id": "q4", "question": f"Who founded {SECRET}?", "answers": [], "is_impossible": True,
                      "plausible_answers": [{"text": "Stone Town", "answer_start": 56}]})  # fmt: skip
    return data


def write(tmp_path, data, name: str = "train.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def first_question(data: dict) -> dict:
    return data["data"][0]["paragraphs"][0]["qas"][0]


def refused(tmp_path, data, match: str, allow_unanswerable: bool = False) -> str:
    """The message of the DataError reading `data` raises, checked to name the file, match `match` and quote no
    context or question."""
    path = write(tmp_path, data)
    with pytest.raises(DataError, match=match) as error:
        read_squad(path, allow_unanswerable)
    message = str(error.value)
    assert path in message and SECRET not in message
    return message


def test_a_v1_file_is_read_as_one_row_per_question(tmp_path):
    table, where = read_squad(write(tmp_path, V1), allow_unanswerable=False)
    assert table.schema == SCHEMA
    assert table.column(TEXT).to_pylist() == [f"Where is {SECRET}?", f"What is the capital of {SECRET}?",
                                              f"{SECRET} is off which coast?"]  # fmt: skip
    assert table.column(PAIR).to_pylist() == [CONTEXT] * 3
    assert table.column(LABEL).to_pylist() == [
        [{"text": "Tanzania", "start": 31}, {"text": "off the coast of Tanzania", "start": 14}],
        [{"text": "Stone Town", "start": 56}],
        [{"text": "Tanzania", "start": 31}],
    ]
    assert table.column(ID).to_pylist() == ["q1", "q2", "q3"]
    assert table.column(GROUP).to_pylist() == ["Zanzibar", "Zanzibar", "q3"]  # no title: the question's own id
    assert where.row(1) == "article 0, paragraph 0, question 1 (id 'q2')"
    assert where.row(2) == "article 1, paragraph 0, question 0 (id 'q3')"


def test_a_v2_file_keeps_its_unanswerable_questions_with_no_answer(tmp_path):
    table, where = read_squad(write(tmp_path, v2()), allow_unanswerable=True)
    assert table.column(ID).to_pylist() == ["q1", "q2", "q4", "q3"]
    assert table.column(LABEL).to_pylist()[2] == []  # plausible_answers are no answers
    assert where.row(2) == "article 0, paragraph 0, question 2 (id 'q4')"
    v1_table, _ = read_squad(write(tmp_path, V1), allow_unanswerable=True)  # a v1.1 file is a valid v2.0 one
    assert v1_table.equals(table.filter(pa.array([True, True, False, True])))


def hub_rows(data: dict) -> dict:
    """The columns of the Hub's squad layout holding the questions of a SQuAD JSON dict."""
    rows = {"id": [], "title": [], "context": [], "question": [], "answers": []}
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for question in paragraph["qas"]:
                rows["id"].append(question["id"])
                rows["title"].append(article.get("title", ""))
                rows["context"].append(paragraph["context"])
                rows["question"].append(question["question"])
                answers = question["answers"]
                rows["answers"].append({"text": [answer["text"] for answer in answers],
                                        "answer_start": [answer["answer_start"] for answer in answers]})  # fmt: skip
    return rows


HUB_ANSWERS = pa.struct([("text", pa.list_(pa.string())), ("answer_start", pa.list_(pa.int32()))])


def hub_table(data: dict) -> pa.Table:
    rows = hub_rows(data)
    return pa.table({name: pa.array(values, HUB_ANSWERS if name == "answers" else pa.string())
                     for name, values in rows.items()})  # fmt: skip


@pytest.mark.parametrize("version", ["v1.1", "v2.0"])
def test_a_hub_table_reads_as_the_same_json_file_does(tmp_path, version):
    data, allow = (V1, False) if version == "v1.1" else (v2(), True)
    from_json, _ = read_squad(write(tmp_path, data), allow)
    from_hub, where = squad_table(hub_table(data), Where("squad (split train)"), allow)
    assert from_hub.equals(from_json)  # an empty title groups by id, as a missing one does
    assert where.row(1) == "row 1 (counted from 0) (id 'q2')"


def test_a_table_made_by_datasets_with_the_hub_squad_features_is_read():
    datasets = pytest.importorskip("datasets")
    features = datasets.Features({
        "id": datasets.Value("string"), "title": datasets.Value("string"), "context": datasets.Value("string"),
        "question": datasets.Value("string"),
        "answers": datasets.Sequence({"text": datasets.Value("string"), "answer_start": datasets.Value("int32")}),
    })  # fmt: skip
    split = datasets.Dataset.from_dict(hub_rows(v2()), features=features)
    table, _ = squad_table(split.data.table, "squad_v2", allow_unanswerable=True)
    assert table.column(LABEL).to_pylist()[2] == [] and table.num_rows == 4


def test_a_table_without_titles_groups_by_question_and_a_json_lines_file_names_lines(tmp_path):
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in hub_table(V1).drop_columns(["title"]).to_pylist()))
    table, where = squad_table(read_file(str(path), "jsonl"), Where(str(path), "jsonl"), allow_unanswerable=False)
    assert table.column(GROUP).to_pylist() == ["q1", "q2", "q3"]
    assert where.row(2) == "line 3 (id 'q3')"


def test_an_all_unanswered_json_lines_file_holds_lists_of_nothing_and_is_read(tmp_path):
    row = {"id": "q", "context": CONTEXT, "question": "Who?", "answers": {"text": [], "answer_start": []}}
    path = tmp_path / "test.jsonl"
    path.write_text(json.dumps(row) + "\n")
    table, _ = squad_table(read_file(str(path), "jsonl"), Where(str(path), "jsonl"), allow_unanswerable=True)
    assert table.column(LABEL).to_pylist() == [[]]


def with_first(change) -> dict:
    data = copy.deepcopy(V1)
    change(first_question(data))
    return data


PLACE = r"article 0, paragraph 0, question 0 \(id 'q1'\)"


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda q: q["answers"][0].update(answer_start=32), f"{PLACE}, answer 0: its text .8 characters. is not the "
                                                            "context's text at its answer_start 32"),
        (lambda q: q["answers"][1].update(answer_start=500), f"{PLACE}, answer 1: its answer_start 500 lies outside "
                                                             "the context .67 characters."),
        (lambda q: q["answers"][0].update(answer_start=-1), "answer_start -1 lies outside the context"),
        (lambda q: q["answers"][0].update(answer_start=63, text="Town."), "answer 0: its text .5 characters. is not"),
        (lambda q: q["answers"][0].update(answer_start=31.0), "answer 0: its answer_start is not a whole number"),
        (lambda q: q["answers"][0].update(answer_start="31"), "answer 0: its answer_start is not a whole number"),
        (lambda q: q["answers"][0].update(answer_start=True), "answer 0: its answer_start is not a whole number"),
        (lambda q: q["answers"][0].update(text=""), "answer 0 has no text"),
        (lambda q: q.update(question="  "), f"{PLACE} has no question"),
        (lambda q: q.pop("question"), f"{PLACE} has no question"),
        (lambda q: q.update(id=""), r"article 0, paragraph 0, question 0 has no id"),
        (lambda q: q.update(id=7), r"article 0, paragraph 0, question 0 has no id"),
        (lambda q: q.update(answers=[]), f"{PLACE} has no answer: unanswerable questions are SQuAD v2.0's"),
        (lambda q: q.update(is_impossible=False), f"{PLACE} has an is_impossible key: unanswerable questions are"),
        (lambda q: q.update(answers={"text": "Tanzania"}), f"{PLACE} has no 'answers' list of objects"),
        (lambda q: q.update(id="q3"), r"question id 'q3' is used twice: article 0, paragraph 0, question 0 and "
                                      "article 1, paragraph 0, question 0"),
    ],
)  # fmt: skip
def test_each_bad_question_of_a_v1_file_is_named(tmp_path, change, match):
    refused(tmp_path, with_first(change), match)


@pytest.mark.parametrize("context", ["", " \n", None, 3])
def test_an_empty_or_missing_context_is_refused(tmp_path, context):
    data = copy.deepcopy(V1)
    data["data"][0]["paragraphs"][0]["context"] = context
    refused(tmp_path, data, f"{PLACE} has no context")


def test_a_title_that_is_not_text_is_refused(tmp_path):
    data = copy.deepcopy(V1)
    data["data"][0]["title"] = ["Zanzibar"]
    refused(tmp_path, data, f"{PLACE}: its article's title is not text")


def test_a_duplicate_id_names_the_first_place_that_used_it(tmp_path):
    data = copy.deepcopy(V1)
    data["data"][1]["paragraphs"][0]["qas"][0]["id"] = "q2"
    refused(tmp_path, data, "question id 'q2' is used twice: article 0, paragraph 0, question 1 and article 1, "
                            "paragraph 0, question 0")  # fmt: skip


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda q: q.update(is_impossible=True), f"{PLACE}: its is_impossible is true, but it has answers"),
        (lambda q: q.update(answers=[]), f"{PLACE}: its is_impossible is false, but it has no answer"),
        (lambda q: q.update(is_impossible="no"), f"{PLACE}: its is_impossible is not true or false"),
    ],
)
def test_is_impossible_must_agree_with_the_answers_in_a_v2_file(tmp_path, change, match):
    data = v2()
    change(first_question(data))
    refused(tmp_path, data, match, allow_unanswerable=True)


def test_a_v2_file_under_v1_is_refused_by_its_first_v2_question(tmp_path):
    message = refused(tmp_path, v2(), "has an is_impossible key")
    assert "(id 'q1')" in message
    data = v2()
    for question in data["data"][0]["paragraphs"][0]["qas"]:
        del question["is_impossible"]  # unanswerable questions without the key: still v2.0
    refused(tmp_path, data, r"question 2 \(id 'q4'\) has no answer: unanswerable questions are SQuAD v2.0's")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{", r"not a JSON file \(Expecting property name enclosed in double quotes: line 1, column 2\)"),
        ("[]", "the file has no 'data' list"),
        ('{"data": [{"title": "x"}]}', "article 0 has no 'paragraphs' list"),
        ('{"data": [{"paragraphs": [{"context": "c"}]}]}', "article 0, paragraph 0 has no 'qas' list"),
        ('{"data": [{"paragraphs": [{"context": "c", "qas": [3]}]}]}', "question 0 is not an object"),
        ('{"data": [{"paragraphs": [{"context": "c", "qas": []}]}]}', "no question"),
        ('{"data": []}', "no question"),
    ],
)
def test_a_file_that_is_not_squad_is_refused(tmp_path, text, match):
    path = tmp_path / "dev.json"
    path.write_text(text)
    with pytest.raises(DataError, match=match):
        read_squad(str(path), allow_unanswerable=True)


def test_a_file_that_is_not_utf8_or_not_there_is_refused(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps(V1).replace("Stone", "St\u00f6ne").encode("latin-1"))
    with pytest.raises(DataError, match="not UTF-8 text: byte"):
        read_squad(str(path), allow_unanswerable=False)
    with pytest.raises(DataError, match="not readable"):
        read_squad(str(tmp_path / "missing.json"), allow_unanswerable=False)


def test_a_byte_order_mark_is_no_part_of_the_file(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(V1).encode())
    assert read_squad(str(path), allow_unanswerable=False)[0].num_rows == 3


def test_bad_hub_rows_are_named_by_row():
    table = hub_table(V1)
    answers = table.column("answers").to_pylist()
    answers[2] = {"text": ["Tanzania"], "answer_start": [30]}
    bad = table.set_column(4, "answers", pa.array(answers, HUB_ANSWERS))
    with pytest.raises(DataError, match=r"squad: row 2 \(counted from 0\) \(id 'q3'\), answer 0: its text"):
        squad_table(bad, "squad", allow_unanswerable=False)
    answers[2] = {"text": ["Tanzania", "x"], "answer_start": [31]}
    bad = table.set_column(4, "answers", pa.array(answers, HUB_ANSWERS))
    with pytest.raises(DataError, match=r"row 2 \(counted from 0\): its answers' text and answer_start lists differ"):
        squad_table(bad, "squad", allow_unanswerable=False)
    answers[2] = {"text": [], "answer_start": []}
    bad = table.set_column(4, "answers", pa.array(answers, HUB_ANSWERS))
    with pytest.raises(DataError, match=r"row 2 \(counted from 0\) \(id 'q3'\) has no answer"):
        squad_table(bad, "squad", allow_unanswerable=False)
    bad = table.set_column(0, "id", pa.array(["q1", "q2", "q1"]))
    with pytest.raises(DataError, match=r"question id 'q1' is used twice: row 0 \(counted from 0\) and row 2"):
        squad_table(bad, "squad", allow_unanswerable=False)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda t: t.drop_columns(["context"]), "no column 'context'"),
        (lambda t: t.set_column(4, "answers", pa.array([[{"text": "x"}]] * 3)), "column 'answers' holds list"),
        (lambda t: t.set_column(4, "answers", pa.array([None] * 3, HUB_ANSWERS)), "column 'answers' is empty in row 0"),
        (lambda t: t.set_column(2, "context", pa.array([CONTEXT, "", CONTEXT])), r"row 1 .* has no context"),
        (lambda t: t.set_column(1, "title", pa.array([1, 2, 3])), "column 'title' holds int64, not text"),
        (lambda t: t.slice(0, 0), "no rows"),
    ],
)
def test_a_bad_hub_table_is_refused(change, match):
    with pytest.raises(DataError, match=match) as error:
        squad_table(change(hub_table(V1)), "squad", allow_unanswerable=False)
    assert SECRET not in str(error.value)


def test_a_question_must_leave_more_context_than_the_stride_in_a_window(tmp_path):
    _, where = read_squad(write(tmp_path, V1), allow_unanswerable=False)
    # max_length 16 with 3 special tokens and a stride of 4: a question of 8 pieces leaves 5 context pieces
    check_question_lengths(np.array([8, 1, 8]), 16, 3, 4, where)
    with pytest.raises(DataError, match=r"question 1 \(id 'q2'\): its question is 9 pieces long; at max_length 16 "
                                         "a question may have at most 8") as error:  # fmt: skip
        check_question_lengths(np.array([8, 9, 100]), 16, 3, 4, where)
    assert SECRET not in str(error.value)
