"""The lexical baseline of extractive question answering on hand-made contexts: the sentence that shares the most
normalised words with the question, the earliest on a tie, and no answer in a v2.0 task where none shares a word."""

import pyarrow as pa
import pytest

from snakebert.finetune.examples import PAIR, TEXT
from snakebert.finetune.squad_baseline import sentence_answers, sentence_spans
from snakebert.finetune.squad_metrics import qa_scores, question_counts

ANIMALS = "The cat sat on the mat.  Dogs bark loudly at night!\nWhere do birds fly? Birds fly south."


def table(*rows: tuple[str, str]) -> pa.Table:
    return pa.table({TEXT: [question for question, _ in rows], PAIR: [context for _, context in rows]})


def sentences(context: str) -> list[str]:
    return [context[start:end] for start, end in sentence_spans(context)]


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (ANIMALS, ["The cat sat on the mat.", "Dogs bark loudly at night!", "Where do birds fly?", "Birds fly south."]),
        ('He said "Stop." Then he left', ['He said "Stop."', "Then he left"]),  # a closing quote ends it, too
        ("It weighs 3.5 kg (about 8 lb.) in all.", ["It weighs 3.5 kg (about 8 lb.)", "in all."]),
        ("Dr. Smith came.", ["Dr.", "Smith came."]),  # an abbreviation is cut: the baseline is simple
        ("  no end mark  ", ["no end mark"]),
        ("Wait... what?! Yes.", ["Wait...", "what?!", "Yes."]),
    ],
)
def test_a_context_is_cut_into_sentences_after_their_end_marks(context, expected):
    assert sentences(context) == expected


def test_each_question_gets_the_sentence_that_shares_most_of_its_words():
    questions = table(
        ("When do dogs bark?", ANIMALS),  # dogs, bark (and 'do' from the third sentence: 1)
        ("WHERE do birds fly SOUTH", ANIMALS),  # where, do, birds, fly (4) against birds, fly, south (3)
        ("Where did the cat sit, on what?", ANIMALS),  # cat, on (2) against where (1)
        ("Why is the sky blue?", ANIMALS),  # no word in common: the first sentence
        ("Do birds bark?", ANIMALS),  # overlaps 0, 1 (bark), 2 (do, birds), 1 (birds)
        ("Birds bark", ANIMALS),  # overlaps 0, 1, 1, 1: the earliest of the tied
    )
    assert sentence_answers(questions, allow_unanswerable=False) == [
        "Dogs bark loudly at night!",
        "Where do birds fly?",
        "The cat sat on the mat.",
        "The cat sat on the mat.",
        "Where do birds fly?",
        "Dogs bark loudly at night!",
    ]


def test_in_a_v2_task_a_question_that_shares_no_word_gets_no_answer():
    questions = table(("Why is the sky blue?", ANIMALS), ("The an a?", "A cat. The end."), ("Do dogs bark?", ANIMALS))
    assert sentence_answers(questions, allow_unanswerable=True) == ["", "", "Dogs bark loudly at night!"]


def test_words_are_compared_normalised():
    context = "Stone Town, the capital, is old. Zanzibar's port is busy."
    found = sentence_answers(table(("stone-town CAPITAL?", context), ("zanzibars PORT", context)), False)
    assert found == ["Stone Town, the capital, is old.", "Zanzibar's port is busy."]


def test_every_answer_is_a_span_of_its_context_and_scores_as_squad_scores_it():
    questions = table(("When do dogs bark?", ANIMALS), ("What is the sky?", "The sky is blue. Grass is green."))
    found = sentence_answers(questions, allow_unanswerable=True)
    assert all(answer in context for answer, context in zip(found, questions.column(PAIR).to_pylist(), strict=True))
    counts = question_counts([["at night"], ["blue"]], found)
    # 'dogs bark loudly at night' against 'at night': P 2/5, R 1 -> 4/7; 'sky is blue' against 'blue': P 1/3 -> 1/2
    assert qa_scores(["exact_match", "squad_f1"], counts) == pytest.approx(
        {"exact_match": 0.0, "squad_f1": (4 / 7 + 1 / 2) / 2}
    )
