"""An extractive question-answering split cut into windows (QAWindows), with the tiny BERT WordPiece tokenizer and the
tiny RoBERTa byte-level BPE one: a long context is cut into windows that overlap by the stride and cover each of its
characters; each window's labels are the first answer's pieces where the window holds it whole (they map back to the
answer's text through the offsets) and the first position otherwise, or for an unanswerable question; every row has
one shape that ends in padding, the split is padded with copies of row 0, and a row holds start_positions and
end_positions; logits that peak at the labelled positions give back the answers, and a threshold answers ""; a
question too long for a window is refused."""

import copy

import numpy as np
import pyarrow as pa
import pytest
from tiny_corpus import DOCS
from transformers import AutoTokenizer

from snakebert.errors import DataError
from snakebert.finetune.encoded import RESERVED
from snakebert.finetune.qa_windows import NO_SPAN, QAWindows, answer_span, qa_stride
from snakebert.finetune.squad_examples import SCHEMA

MAX_LENGTH = 48
LONG = " ".join(DOCS)  # far longer than a window
SHORT = "Rivers carry sediment."


def answered(context: str, text: str) -> dict:
    """The answer `text` at its first place in `context`."""
    return {"text": text, "start": context.index(text)}


QUESTIONS = [  # (question, context, answers)
    ("Who met on Tuesday?", LONG, [answered(LONG, "The committee")]),
    ("What do bakers do?", LONG, [answered(LONG, "rise early"), answered(LONG, "rise")]),
    ("What do rivers carry?", SHORT, [answered(SHORT, "sediment")]),
    ("Where is the library?", LONG, []),  # unanswerable (SQuAD v2.0)
    ("What do ovens do?", LONG, [answered(LONG, "heat")]),
]


def table(questions=QUESTIONS) -> pa.Table:
    columns = list(zip(*questions, strict=True))
    ids = [f"q{index}" for index in range(len(questions))]
    return pa.table({"text": columns[0], "text_pair": columns[1], "label": columns[2], "id": ids, "group": ids},
                    schema=SCHEMA)  # fmt: skip


@pytest.fixture(scope="module", params=["bert", "roberta"])
def tokenizer(request):
    data = request.getfixturevalue("tiny_data" if request.param == "bert" else "roberta_data")
    return AutoTokenizer.from_pretrained(data.tokenizer)


@pytest.fixture(scope="module")
def split(tokenizer) -> QAWindows:
    return QAWindows(table(), tokenizer, MAX_LENGTH, padded_to=4)


def windows_of(split: QAWindows, question: int) -> list[int]:
    return [int(window) for window in np.flatnonzero(split.window_question == question)]


def test_a_long_context_is_cut_into_windows_that_cover_each_of_its_characters(split):
    assert len(windows_of(split, 0)) > 3 and len(windows_of(split, 2)) == 1
    for question, context in enumerate(split.contexts):
        covered = np.zeros(len(context), bool)
        for window in windows_of(split, question):
            for span in filter(None, split.offsets[window]):
                covered[span[0] : span[1]] = True
        assert all(covered[index] for index, character in enumerate(context) if not character.isspace())


def test_consecutive_windows_share_the_stride_of_context_pieces(split):
    windows = windows_of(split, 0)
    for before, after in zip(windows, windows[1:], strict=False):
        pieces = [[span for span in split.offsets[window] if span is not None] for window in (before, after)]
        assert pieces[0][-qa_stride(MAX_LENGTH) :] == pieces[1][: qa_stride(MAX_LENGTH)]


def test_a_window_labels_the_first_answer_where_it_holds_it_whole_and_the_first_position_elsewhere(split):
    outside = 0  # windows of an answerable question that do not hold its answer
    for question, answers in enumerate(split.truth):
        labelled = 0
        for window in windows_of(split, question):
            start, end = split.labels[window].tolist()
            context, offsets = split.contexts[question], split.offsets[window]
            if (start, end) == NO_SPAN:
                if answers:  # the window's context does not hold the first answer whole
                    first = answers[0]["start"]
                    held = [span for span in offsets if span is not None]
                    assert held[0][0] > first or held[-1][1] < first + len(answers[0]["text"])
                    outside += 1
                continue
            labelled += 1
            assert 0 < start <= end and offsets[start] is not None and offsets[end] is not None
            assert context[offsets[start][0] : offsets[end][1]] == answers[0]["text"]
        assert labelled >= 1 if answers else labelled == 0  # overlapping windows may both hold an answer
    assert outside > 0


def test_answer_span_needs_the_whole_answer_in_the_windows_context():
    offsets = [None, None, (0, 3), (4, 9), (10, 12), None]  # [CLS] question-piece context... [SEP]
    assert answer_span(offsets, 4, 9) == (3, 3) and answer_span(offsets, 0, 12) == (2, 4)
    assert answer_span(offsets, 5, 8) == (3, 3)  # inside one piece: that piece
    assert answer_span(offsets, 10, 15) == NO_SPAN  # runs past the window's last context piece
    assert answer_span([None, (7, 9), None], 2, 5) == NO_SPAN  # starts before its first


def test_every_row_has_one_shape_that_ends_in_padding_and_holds_start_and_end_positions(split, tokenizer):
    assert len(split) % 4 == 0 and len(split) >= split.count
    rows = [split[index] for index in range(len(split))]
    assert all("labels" not in row and {"start_positions", "end_positions"} <= set(row) for row in rows)
    assert {tuple(row["input_ids"].shape) for row in rows} == {(MAX_LENGTH,)}
    assert all(row["attention_mask"][-RESERVED:].sum() == 0 for row in rows)
    assert all(row["input_ids"][-1] == tokenizer.pad_token_id for row in rows)
    assert all(row["input_ids"][0] == tokenizer.cls_token_id for row in rows)  # position 0: where no answer points
    for padding in rows[split.count :]:  # copies of row 0
        assert all((padding[name] == rows[0][name]).all() for name in rows[0])
    assert split[(3, 1)]["start_positions"] == rows[1]["start_positions"]  # (epoch, i), as EpochSampler gives it


def peaked(split: QAWindows, rows: int) -> np.ndarray:
    """Start and end logits (rows, max_length, 2) that peak at each window's labels, on [CLS] for a window without
    the answer, but less there than where a window holds it."""
    logits = np.zeros((rows, MAX_LENGTH, 2))
    for window, (start, end) in enumerate(split.labels[: split.count].tolist()):
        logits[window, start, 0] = logits[window, end, 1] = 5.0 if start else 1.0
    return logits


def test_logits_that_peak_at_the_labels_give_back_the_first_answers(split):
    answers = split.example_outputs(peaked(split, len(split)))  # the padding rows are left out
    assert answers[:3] == ["The committee", "rise early", "sediment"] and answers[4] == "heat"
    assert split.example_outputs(peaked(split, split.count)) == answers


def test_a_threshold_answers_nothing_where_the_null_score_wins(split):
    spans = split.spans(peaked(split, split.count))
    assert np.isfinite(spans.scores[3])  # the unanswerable question has a span, whose score is below the null's
    found = copy.copy(split)  # the module's split keeps no threshold
    found.threshold = 0.0
    answers = found.example_outputs(peaked(split, split.count))
    assert answers[3] == "" and answers[:3] == ["The committee", "rise early", "sediment"]
    assert split.threshold is None  # a class default, the split's own only where set


def test_the_fitted_threshold_answers_nothing_only_where_that_scores_better(split):
    logits = peaked(split, split.count)
    unanswerable = [int(window) for window in np.flatnonzero(split.window_question == 3)]
    for metric in ("exact_match", "squad_f1"):
        found = copy.copy(split)
        found.threshold = found.fitted_threshold(logits, metric)
        assert found.example_outputs(logits) == ["The committee", "rise early", "sediment", "", "heat"]
    # the unanswerable question's null score far below its best span's, below every other question's: answering it ""
    # means answering every question "", which costs more than it gains
    logits[unanswerable, 0, :] = -9.0
    found = copy.copy(split)
    found.threshold = found.fitted_threshold(logits, "exact_match")
    assert found.example_outputs(logits)[0] == "The committee" and found.example_outputs(logits)[3] != ""


def test_a_question_too_long_for_a_window_is_refused(tokenizer):
    long_question = " ".join(["committee"] * MAX_LENGTH)
    said = r"^train split: row 1 \(counted from 0\) \(id 'q1'\): its question is \d+ pieces"
    with pytest.raises(DataError, match=said):
        QAWindows(table([QUESTIONS[2], (long_question, SHORT, [answered(SHORT, "sediment")])]), tokenizer, MAX_LENGTH,
                  where="train split")  # fmt: skip
