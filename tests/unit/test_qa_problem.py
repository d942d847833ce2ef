"""The extractive_qa problem's entry (problems.py), without a model: its scores are SQuAD's from each question's gold
texts (as read, {text, start}, or as texts), the bootstrap's sums of question rows equal a score computed anew,
task.json counts questions and unanswerable ones, the stacked start and end logits pass through train.predicted into
QAWindows' answers, a Hub-layout table is read into the flat table, the squad_sentence baseline answers with sentences,
a v1.1 task refuses a question without an answer by row and id, and the squad presets resolve as v1.1 and v2.0."""

import numpy as np
import pyarrow as pa
import pytest
from finetune_data import task_description

from snakebert.errors import DataError
from snakebert.finetune.baselines import BASELINES, squad_sentence
from snakebert.finetune.examples import GROUP, LABEL, PAIR, TEXT, Where
from snakebert.finetune.hub_task import resolved
from snakebert.finetune.problems import PROBLEMS
from snakebert.finetune.squad_metrics import QA_METRICS, qa_scores
from snakebert.finetune.tasks import check_answered

QA = PROBLEMS["extractive_qa"]
CONTEXT = "Zanzibar lies off the coast of Tanzania. Its capital is Stone Town."
TASK = task_description(task="qa", problem="extractive_qa", labels=None, metrics=QA_METRICS, allow_unanswerable=True)
ENTRY = {"name": "qa", "problem": "extractive_qa", "allow_unanswerable": True}  # the task's config entry


def hub_rows(answers: list[dict]) -> pa.Table:
    """Rows laid out as the Hub's squad_v2, a question per answers struct."""
    count = len(answers)
    return pa.table({
        "id": [f"q{index}" for index in range(count)],
        "title": ["Zanzibar"] * (count - 1) + [None],
        "context": [CONTEXT] * count,
        "question": ["Where is Zanzibar?"] * count,
        "answers": answers,
    })  # fmt: skip


ROWS = hub_rows([
    {"text": ["Tanzania", "off the coast of Tanzania"], "answer_start": [31, 14]},
    {"text": ["Stone Town"], "answer_start": [56]},
    {"text": [], "answer_start": []},  # unanswerable
])  # fmt: skip


def flat() -> pa.Table:
    columns = {TEXT: None, PAIR: None, LABEL: None, GROUP: None}
    return QA.examples(ROWS, columns, Where("rows"))


def test_a_hub_layout_table_is_read_into_the_flat_question_table():
    table = flat()
    assert table.column(TEXT).to_pylist() == ["Where is Zanzibar?"] * 3
    assert table.column(LABEL).to_pylist()[0] == [{"text": "Tanzania", "start": 31},
                                                  {"text": "off the coast of Tanzania", "start": 14}]  # fmt: skip
    assert table.column(GROUP).to_pylist() == ["Zanzibar", "Zanzibar", "q2"]  # no title: its own group
    renamed = ROWS.rename_columns(["id", "title", "passage", "query", "answers"])
    assert QA.examples(renamed, {TEXT: "query", PAIR: "passage", LABEL: None, GROUP: None}, "rows").equals(table)


def test_scores_are_squads_from_the_gold_texts_as_read_or_as_texts():
    table = flat()
    truth = table.column(LABEL).to_pylist()
    predicted = ["the coast of Tanzania", "Stone", ""]
    found = QA.scores(list(QA_METRICS), truth, predicted, TASK)
    assert found["exact_match"] == pytest.approx(1 / 3)
    texts = [[gold["text"] for gold in answers] for answers in truth]
    assert QA.scores(list(QA_METRICS), texts, predicted, TASK) == found
    # the first question's best F1 is against its second gold answer (3 of 3 predicted words, 3 of 4 gold ones)
    assert found["squad_f1"] == pytest.approx((6 / 7 + 2 / 3 + 1) / 3)


def test_the_bootstrap_sums_question_rows_to_the_score_of_the_drawn_questions():
    truth = flat().column(LABEL).to_pylist()
    runs = {"pretrained": [["Tanzania", "Stone Town", "Zanzibar"], None]}
    placeholder, drawn, score = QA.resampled("squad_f1", truth, runs, TASK)
    assert len(placeholder) == 3 and drawn["pretrained"][1] is None
    rows = np.array([1, 1, 2])
    drawn_truth = [truth[row] for row in rows]
    drawn_answers = [runs["pretrained"][0][row] for row in rows]
    expected = QA.scores(["squad_f1"], drawn_truth, drawn_answers, TASK)["squad_f1"]
    assert score(placeholder[rows], drawn["pretrained"][0][rows]) == pytest.approx(expected)
    assert qa_scores(["squad_f1"], drawn["pretrained"][0])["squad_f1"] == pytest.approx(2 / 3)


def test_task_json_counts_questions_and_unanswerable_ones():
    labels = flat().column(LABEL).to_numpy()
    assert QA.counted(labels, None) == {"questions": 3, "unanswerable": 1}


def test_stacked_logits_pass_through_train_predicted_to_the_answers():
    from snakebert.finetune.train import predicted

    class Split:  # what train.predicted hands its logits to: QAWindows' example_outputs
        def example_outputs(self, outputs):
            return outputs

    start, end = np.zeros((3, 8), np.float32), np.ones((3, 8), np.float32)
    stacked = predicted(TASK, Split(), (start, end))  # the trainer's predictions: a (start, end) pair
    assert stacked.shape == (3, 8, 2) and (stacked[..., 1] == 1).all()
    with pytest.raises(ValueError, match="stacked as"):
        QA.predicted(np.zeros((3, 8)))


def test_the_sentence_baseline_answers_each_question_with_its_best_sentence():
    assert set(BASELINES["extractive_qa"]) == {"squad_sentence"}
    table = flat()
    found = squad_sentence({"train": table, "validation": table, "test": table}, TASK)
    assert found.predictions == ["Zanzibar lies off the coast of Tanzania."] * 3
    assert set(found.test) == set(QA_METRICS)


def test_a_v1_task_refuses_a_question_without_an_answer_by_row_and_id():
    table = flat()
    check_answered(ENTRY, "extractive_qa", {"train": (table, Where("rows"))})  # v2.0 allows it
    check_answered({**ENTRY, "allow_unanswerable": False}, "classification", {"train": (table, Where("rows"))})
    with pytest.raises(
        DataError, match=r"rows: row 2 \(counted from 0\) \(id 'q2'\) has no answer.*allow_unanswerable"
    ):
        check_answered({**ENTRY, "allow_unanswerable": False}, "extractive_qa", {"train": (table, Where("rows"))})


def test_the_squad_presets_resolve_as_v1_and_v2():
    blank = {"name": "qa", "path": None, "config": None, "train_split": None, "validation_split": None,
             "test_split": None, "text_column": None, "text_pair_column": None, "label_column": None,
             "problem": None, "metrics": None, "allow_unanswerable": None}  # fmt: skip
    v1, v2 = (resolved({**blank, "preset": name}) for name in ("squad", "squad_v2"))
    assert (v1["path"], v1["problem"], v1["allow_unanswerable"]) == ("rajpurkar/squad", "extractive_qa", False)
    assert (v2["path"], v2["allow_unanswerable"], v2["metrics"]) == ("rajpurkar/squad_v2", True, list(QA_METRICS))
    assert (v1["validation_split"], v1["test_split"]) == (None, "validation")  # carved out of train; test hidden
