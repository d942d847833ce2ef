"""run_qa.py-style post-processing on hand-made logits and offsets: the best span over a question's windows, spans
that end before they start, run too long or touch a question token left out, the n-best limit, SQuAD v2.0's null
answer, the threshold chosen on validation, and the whole against a plain loop over every candidate pair."""

import numpy as np
import pytest

from snakebert.finetune.qa_postprocess import Spans, answers_at, best_spans, chosen_threshold
from snakebert.finetune.squad_metrics import question_counts

CONTEXT = "alpha beta gamma delta epsilon"
WORDS = [(0, 5), (6, 10), (11, 16), (17, 22), (23, 30)]  # each word's characters in CONTEXT
# a window: [CLS], two question tokens, [SEP], the five context words, [SEP]
OFFSETS = [None, None, None, None, *WORDS, None]


def logits(high: dict[int, float], positions: int = 10) -> np.ndarray:
    """One window's logits: 0 everywhere but at the positions given."""
    found = np.zeros(positions)
    for position, value in high.items():
        found[position] = value
    return found


def one_window(starts: dict, ends: dict, **options):
    spans = best_spans(logits(starts)[None], logits(ends)[None], [OFFSETS], np.array([0]), [CONTEXT], **options)
    return spans.texts[0], spans.scores[0], spans.null_scores[0]


def answers_at_one(text, score, null, threshold):
    return answers_at(Spans([text], np.array([score]), np.array([null])), threshold)[0]


def test_the_best_start_and_end_give_the_answer_cut_from_the_context():
    text, score, null = one_window({5: 4.0, 0: 1.0}, {6: 3.0, 0: 0.5})
    assert (text, score, null) == ("beta gamma", 7.0, 1.5)


def test_an_end_before_its_start_is_no_span():
    # the best start is gamma (6) and the best end beta (5), 10 together: no span; gamma alone (6) beats beta (5)
    assert one_window({6: 5.0}, {5: 5.0, 6: 1.0})[:2] == ("gamma", 6.0)


def test_a_span_longer_than_max_answer_length_is_left_out():
    assert one_window({4: 5.0}, {8: 5.0})[0] == "alpha beta gamma delta epsilon"
    text, score, _ = one_window({4: 5.0}, {8: 5.0, 6: 1.0}, max_answer_length=3)
    assert (text, score) == ("alpha beta gamma", 6.0)  # 5 tokens is too long; alpha..gamma is 3


def test_question_tokens_special_tokens_and_padding_are_no_part_of_a_span():
    # the highest logits lie on the question (1, 2) and on the last [SEP] (9): the best span inside is delta
    assert one_window({1: 9.0, 2: 8.0, 7: 1.0}, {2: 9.0, 9: 8.0, 7: 1.0})[:2] == ("delta", 2.0)
    # positions past a window's offsets (padding) are outside the context, too
    spans = best_spans(logits({9: 9.0, 4: 1.0}, 12)[None], logits({10: 9.0, 4: 1.0}, 12)[None], [OFFSETS],
                       np.array([0]), [CONTEXT])  # fmt: skip
    assert spans.texts == ["alpha"]


def test_only_the_n_best_starts_and_ends_are_paired():
    # with n_best 2 the starts tried are 1 and 2 (question tokens), the ends 1 and 9: no candidate span at all
    text, score, null = one_window({1: 9.0, 2: 8.0, 7: 1.0}, {1: 9.0, 9: 8.0, 7: 1.0}, n_best=2)
    assert (text, score) == ("", -np.inf)
    assert answers_at_one(text, score, null, threshold=None) == ""


def test_the_best_span_over_a_questions_windows_wins_and_the_null_score_is_their_lowest():
    # question 0 has windows 0 and 2 (its context seen twice, shifted); question 1 has window 1
    second = [None, None, None, None, *WORDS[2:], None, None, None]  # gamma, delta, epsilon at 4, 5, 6
    starts = np.stack([logits({0: 2.0, 5: 3.0}), logits({0: 1.0, 4: 1.0}), logits({0: 1.0, 6: 4.0})])
    ends = np.stack([logits({0: 2.0, 5: 3.0}), logits({0: 1.0, 4: 1.0}), logits({0: -0.5, 6: 4.0})])
    contexts = [CONTEXT, "one two three four five"]
    other = [None, None, None, None, (0, 3), (4, 7), (8, 13), (14, 18), (19, 23), None]
    spans = best_spans(starts, ends, [OFFSETS, other, second], np.array([0, 1, 0]), contexts)
    assert spans.texts == ["epsilon", "one"]  # window 2's epsilon (8) beats window 0's beta (6)
    assert spans.scores.tolist() == [8.0, 2.0]
    assert spans.null_scores.tolist() == [0.5, 2.0]  # question 0: min(2 + 2, 1 - 0.5)
    starts[0, 5], ends[0, 5] = 5.0, 5.0  # now window 0's beta (10) beats it
    assert best_spans(starts, ends, [OFFSETS, other, second], np.array([0, 1, 0]), contexts).texts[0] == "beta"


def test_a_tie_goes_to_the_earliest_window():
    second = [None, None, None, None, *WORDS[1:], None, None]  # beta at 4
    starts = np.stack([logits({6: 2.0}), logits({4: 2.0})])  # gamma in the first, beta in the second
    spans = best_spans(starts, starts.copy(), [OFFSETS, second], np.array([0, 0]), [CONTEXT])
    assert spans.texts == ["gamma"]


def test_v2_answers_nothing_where_the_null_score_beats_the_span_by_more_than_the_threshold():
    text, score, null = one_window({0: 3.0, 5: 2.0}, {0: 3.0, 5: 2.0})  # span beta 4, null 6
    assert (text, score, null) == ("beta", 4.0, 6.0)
    assert answers_at_one(text, score, null, threshold=None) == "beta"  # v1.1: always the span
    assert answers_at_one(text, score, null, threshold=0.0) == ""
    assert answers_at_one(text, score, null, threshold=2.0) == "beta"  # not more than the threshold
    assert answers_at_one(text, score, null, threshold=1.9) == ""


def test_the_threshold_maximises_the_score_and_ties_go_to_the_smallest():
    null_minus_best = np.array([-2.0, 0.5, 1.0, 3.0])
    has_answer = np.array([1, 0, 1, 0])
    if_null, if_span = 1 - has_answer, has_answer.astype(float)  # every span right where there is an answer
    # null where the difference exceeds t: t < -2: all null (2); -2: 3; 0.5: 2; 1: 3; 3: none (2)
    assert chosen_threshold(null_minus_best, if_null, if_span) == -2.0
    assert chosen_threshold(null_minus_best, if_null, if_span, np.array([2.0, 1.0, 0.5, 0.0])) == 0.0
    if_span[0] = 0  # the first question's span is wrong: answering it gains nothing, so all null ties at 2
    assert chosen_threshold(null_minus_best, if_null, if_span) == -3.0  # one below the lowest difference
    assert chosen_threshold(np.array([np.inf]), np.ones(1), np.zeros(1)) == 0.0  # no span anywhere: any threshold


def test_the_chosen_threshold_is_the_best_of_a_brute_force_over_its_candidates():
    rng = np.random.default_rng(3)
    for _ in range(20):
        questions = int(rng.integers(1, 12))
        diffs = np.round(rng.normal(size=questions), 1)  # rounded: tied differences occur
        if_null, if_span = rng.integers(0, 2, questions), rng.random(questions)
        candidates = np.unique(np.concatenate([diffs, [diffs.min() - 1]]))
        totals = [np.where(diffs > t, if_null, if_span).sum() for t in candidates]
        best = candidates[np.flatnonzero(np.isclose(totals, max(totals)))[0]]
        assert chosen_threshold(diffs, if_null, if_span) == best


def test_exact_match_at_the_chosen_threshold_is_the_best_of_the_candidates():
    truth = [["beta"], [], ["alpha"], []]
    texts = ["beta", "gamma", "delta", "epsilon"]
    spans = Spans(texts, np.array([5.0, 1.0, 2.0, 0.0]), np.array([4.0, 2.0, 3.0, 4.0]))  # diffs -1, 1, 1, 4
    if_null = question_counts(truth, [""] * 4)[:, 0]
    if_span = question_counts(truth, texts)[:, 0]
    threshold = chosen_threshold(spans.null_minus_best, if_null, if_span)
    assert threshold == -1.0  # beta answered, the rest left unanswered: 3 of 4
    assert answers_at(spans, threshold) == ["beta", "", "", ""]


def brute_force(starts, ends, offsets, window_question, contexts, n_best, max_answer_length):
    """run_qa.py's loop: each window's n-best starts and ends paired, the valid pairs scored, the best kept (the
    first on a tie), per question."""
    best = {}
    for window in range(len(starts)):
        question = window_question[window]
        spans = list(offsets[window]) + [None] * (starts.shape[1] - len(offsets[window]))
        for start in np.argsort(-starts[window], kind="stable")[:n_best]:
            for end in np.argsort(-ends[window], kind="stable")[:n_best]:
                if spans[start] is None or spans[end] is None or end < start or end - start + 1 > max_answer_length:
                    continue
                score = starts[window, start] + ends[window, end]
                if question not in best or score > best[question][1]:
                    best[question] = (contexts[question][spans[start][0] : spans[end][1]], score)
    return [best.get(question, ("", -np.inf)) for question in range(len(contexts))]


def test_the_spans_equal_a_plain_loop_over_every_candidate_pair():
    rng = np.random.default_rng(7)
    for _ in range(10):
        windows, positions = int(rng.integers(1, 8)), 16
        window_question = np.sort(rng.permutation(np.arange(windows) % max(1, windows // 2)))
        contexts = [f"w{q}" * 30 for q in range(window_question.max() + 1)]
        offsets = []
        for _ in range(windows):
            first, last = int(rng.integers(1, 6)), int(rng.integers(8, positions + 1))
            offsets.append([None] * first + [(2 * i, 2 * i + 2) for i in range(last - first)])
        starts, ends = np.round(rng.normal(size=(2, windows, positions)), 1)
        n_best, longest = int(rng.integers(1, 8)), int(rng.integers(1, 6))
        spans = best_spans(starts, ends, offsets, window_question, contexts, n_best, longest)
        expected = brute_force(starts, ends, offsets, window_question, contexts, n_best, longest)
        assert spans.texts == [text for text, _ in expected]
        assert spans.scores.tolist() == pytest.approx([score for _, score in expected])


def test_a_question_without_a_window_or_logits_that_are_not_finite_are_refused():
    with pytest.raises(ValueError, match="every one of the 2 questions needs a window"):
        best_spans(np.zeros((1, 10)), np.zeros((1, 10)), [OFFSETS], np.array([1]), [CONTEXT, CONTEXT])
    with pytest.raises(ValueError, match="not finite"):
        best_spans(np.full((1, 10), np.nan), np.zeros((1, 10)), [OFFSETS], np.array([0]), [CONTEXT])
