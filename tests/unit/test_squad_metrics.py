"""SQuAD's exact match and F1 on cases worked out by hand from the official evaluation scripts' logic (normalise_answer,
F1 over the Counter overlap of words, the best over the gold answers; v2.0's "" for an unanswerable question), and the
scores as ratios of per-question count rows, so that a resample's score is the sum of its rows."""

import numpy as np
import pytest

from snakebert.finetune.squad_metrics import (
    COUNTS,
    QA_METRICS,
    exact_match,
    f1,
    normalized,
    qa_scores,
    question_counts,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Cat, sat!", "cat sat"),  # case, punctuation, an article
        ("  An   apple\tand\na pear  ", "apple and pear"),  # white space of every kind collapsed
        ("U.S.A.", "usa"),  # punctuation removed, not replaced by a space
        ("well-known", "wellknown"),
        ("the theatre", "theatre"),  # articles are whole words only
        ("banana anthem", "banana anthem"),
        ("A", ""),  # an article alone normalises to nothing
        ("the,cat", "thecat"),  # punctuation goes first: 'thecat' is no article
        ("Café", "café"),  # non-ASCII letters kept, lowercased
        ("Paris—the capital", "paris— capital"),  # non-ASCII punctuation is kept, and is a word boundary
        ("", ""),
    ],
)
def test_answers_are_normalised_as_the_official_script_does(text, expected):
    assert normalized(text) == expected


def test_exact_match_ignores_case_punctuation_articles_and_white_space():
    assert exact_match("Denver Broncos", "the  denver broncos.") == 1
    assert exact_match("Denver Broncos", "Denver") == 0
    assert exact_match("", "the") == 1


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        ("a cat sat down", "the cat sat", 0.8),  # [cat, sat] in [cat, sat, down]: P 1, R 2/3
        ("cat", "dog", 0.0),  # no word in common
        ("the the cat cat", "cat", 2 / 3),  # [cat] in [cat, cat]: P 1, R 1/2
        ("cat dog", "cat cat cat", 0.4),  # a word counts as often as both have it: 1 shared, P 1/3, R 1/2
        ("Super Bowl 50", "super bowl 50!", 1.0),
        ("cat", "", 0.0),  # no answer to an answered question
        ("the", "a", 1.0),  # neither has a word: v2.0's rule (v1.1's script says 0)
    ],
)
def test_f1_is_the_word_overlap_of_the_normalised_answers(gold, predicted, expected):
    assert f1(gold, predicted) == pytest.approx(expected)


def test_a_question_scores_its_best_gold_answer_for_each_metric():
    golds = ["Denver Broncos", "Broncos", "the Denver Broncos team"]
    counts = question_counts([golds, golds, ["p q r s", "x"]], ["Broncos", "Denver", "p q"])
    assert counts[0].tolist() == [1.0, 1.0, 1.0]
    # Denver: F1 2/3 against 'denver broncos', 0 against 'broncos', 1/2 against 'denver broncos team'
    assert counts[1].tolist() == pytest.approx([0.0, 2 / 3, 1.0])
    assert counts[2].tolist() == pytest.approx([0.0, 2 / 3, 1.0])  # [p, q] in [p, q, r, s]: P 1, R 1/2
    assert counts.shape == (3, len(COUNTS))


def test_an_unanswerable_question_is_right_only_when_the_answer_is_empty():
    counts = question_counts([[], [], [], ["cat"]], ["", "the", "cat", ""])
    assert counts[:, :2].tolist() == [[1, 1], [1, 1], [0, 0], [0, 0]]  # 'the' normalises to nothing, as "" does


def test_gold_answers_that_normalise_to_nothing_are_dropped_as_the_v2_script_drops_them():
    assert question_counts([["The", "cat"]], [""])[0, :2].tolist() == [0, 0]
    assert question_counts([["The", "!"]], [""])[0, :2].tolist() == [1, 1]  # none left: the question has no answer


def test_scores_are_ratios_of_the_summed_rows_in_the_order_asked():
    truth = [["cat sat"], ["dog"], [], ["a cat sat down"]]
    counts = question_counts(truth, ["cat sat", "cat", "", "the cat sat"])
    assert qa_scores(["exact_match", "squad_f1"], counts) == pytest.approx(
        {"exact_match": 2 / 4, "squad_f1": (1 + 0 + 1 + 0.8) / 4}
    )
    assert list(qa_scores(list(QA_METRICS), counts)) == ["squad_f1", "exact_match"]
    assert qa_scores(["squad_f1"], counts[3]) == pytest.approx({"squad_f1": 0.8})  # one row alone


def test_a_resample_scores_as_its_questions_scored_anew():
    rng = np.random.default_rng(0)
    truth = [["the cat sat"], ["Denver Broncos", "Broncos"], [], ["blue whale"], ["1999"]]
    predicted = ["cat", "broncos", "x", "the blue whale", "in 1999"]
    counts = question_counts(truth, predicted)
    for _ in range(5):
        drawn = rng.integers(0, len(truth), len(truth))
        anew = question_counts([truth[i] for i in drawn], [predicted[i] for i in drawn])
        assert qa_scores(list(QA_METRICS), counts[drawn]) == pytest.approx(qa_scores(list(QA_METRICS), anew))


def test_no_question_has_no_score_and_a_length_mismatch_is_refused():
    assert qa_scores(list(QA_METRICS), np.zeros((0, len(COUNTS)))) == {"squad_f1": None, "exact_match": None}
    with pytest.raises(ValueError, match="2 questions but 1 predicted"):
        question_counts([["a"], ["b"]], ["a"])
