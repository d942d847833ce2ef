"""From a question-answering model's start and end logits over windows of context to each question's answer, as
run_qa.py's post-processing chooses it (written from its logic): in every window of a question, the n_best highest
start positions and the n_best highest end positions are paired, and a pair is a candidate span where both positions
are context tokens (a question token, a special token or padding is none), the end is not before the start and the
span is at most max_answer_length tokens long; its score is its start logit plus its end logit, and the question's
answer is its best candidate over all its windows, cut from the context by the tokens' character offsets. Ties go to
the earliest window, then to the higher-ranked start and end (run_qa.py leaves exact ties to its sort).

For SQuAD v2.0 a question may have no answer: its null score is the start plus end logit of the first position (the
[CLS] token, where run_qa.py's models point for no answer), the lowest over its windows, and it is answered "" where
the null score exceeds its best span's score by more than a threshold chosen on validation (chosen_threshold).

A split's windows (their offsets and questions) come from qa_windows.py, and the answers are scored by
squad_metrics.py."""

from dataclasses import dataclass

import numpy as np

N_BEST = 20  # the start and end positions tried per window, as run_qa.py's n_best_size
MAX_ANSWER_LENGTH = 30  # the longest answer in tokens, as run_qa.py's max_answer_length


@dataclass(frozen=True)
class Spans:
    """Per question: its best span's text ("" where no window has a candidate span), that span's score (-inf where
    there is none) and the question's null score."""

    texts: list[str]
    scores: np.ndarray
    null_scores: np.ndarray

    @property
    def null_minus_best(self) -> np.ndarray:
        return self.null_scores - self.scores


def best_spans(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    offsets: list[list[tuple[int, int] | None]],
    window_question: np.ndarray,
    contexts: list[str],
    n_best: int = N_BEST,
    max_answer_length: int = MAX_ANSWER_LENGTH,
) -> Spans:
    """Each question's best span over its windows. start_logits and end_logits: (windows, positions); offsets: per
    window, each position's (start, end) characters in its question's context, or None where the position is not in
    the context (positions past a window's list are none either); window_question: the question (an index into
    contexts) of each window; every question has a window."""
    start_logits, end_logits = np.asarray(start_logits, np.float64), np.asarray(end_logits, np.float64)
    if not (np.isfinite(start_logits).all() and np.isfinite(end_logits).all()):
        raise ValueError("the start or end logits hold a number that is not finite")
    windows, positions = start_logits.shape
    window_question = np.asarray(window_question)
    if not np.array_equal(np.unique(window_question), np.arange(len(contexts))):
        raise ValueError(f"every one of the {len(contexts)} questions needs a window, and every window a question")
    begin, finish = _offset_arrays(offsets, positions)
    top = min(n_best, positions)
    starts = np.argsort(-start_logits, axis=1, kind="stable")[:, :top, None]  # (windows, top, 1): best first
    ends = np.argsort(-end_logits, axis=1, kind="stable")[:, None, :top]  # (windows, 1, top)
    rows = np.arange(windows)[:, None, None]
    valid = (begin[rows, starts] >= 0) & (begin[rows, ends] >= 0) & (ends >= starts)
    valid &= ends - starts < max_answer_length
    paired = np.where(valid, start_logits[rows, starts] + end_logits[rows, ends], -np.inf).reshape(windows, -1)
    best = paired.argmax(axis=1)  # the first best pair: the higher-ranked start, then end
    window_score = paired[np.arange(windows), best]
    window_start = starts[np.arange(windows), best // top, 0]
    window_end = ends[np.arange(windows), 0, best % top]
    by_question = np.lexsort((np.arange(windows), -window_score, window_question))  # best window first, earliest
    chosen = by_question[np.unique(window_question[by_question], return_index=True)[1]]
    texts = []
    for question, window in enumerate(chosen):
        found = np.isfinite(window_score[window])
        cut = slice(begin[window, window_start[window]], finish[window, window_end[window]])
        texts.append(contexts[question][cut] if found else "")
    null_scores = np.full(len(contexts), np.inf)
    np.minimum.at(null_scores, window_question, start_logits[:, 0] + end_logits[:, 0])
    return Spans(texts, window_score[chosen], null_scores)


def _offset_arrays(offsets: list, positions: int) -> tuple[np.ndarray, np.ndarray]:
    """The windows' offsets as (windows, positions) arrays of start and end characters, -1 outside the context."""
    found = np.full((len(offsets), positions, 2), -1, dtype=np.int64)
    for window, spans in enumerate(offsets):
        inside = [position for position, span in enumerate(spans[:positions]) if span is not None]
        if inside:
            found[window, inside] = [spans[position] for position in inside]
    return found[..., 0], found[..., 1]


def answers_at(spans: Spans, threshold: float | None) -> list[str]:
    """Each question's answer: its best span, or "" (no answer) where its null score exceeds the span's score by more
    than `threshold`; threshold None (SQuAD v1.1): always the span."""
    if threshold is None:
        return list(spans.texts)
    return ["" if null else text for text, null in zip(spans.texts, spans.null_minus_best > threshold, strict=True)]


def chosen_threshold(
    null_minus_best: np.ndarray, if_null: np.ndarray, if_span: np.ndarray, candidates: np.ndarray | None = None
) -> float:
    """The threshold (of `candidates`, the smallest of those tied) under which answers_at scores best on validation:
    the sum over questions of if_null (each question's score were it answered "") where its null_minus_best exceeds
    the threshold, and of if_span (its score were it answered its best span) elsewhere. For exact match both are
    squad_metrics.question_counts' first column, of "" and of the spans. Candidates by default: every distinct finite
    value of null_minus_best and one below the lowest, so that every choice of unanswered questions is tried."""
    null_minus_best = np.asarray(null_minus_best, np.float64)
    if candidates is None:
        finite = np.unique(null_minus_best[np.isfinite(null_minus_best)])
        candidates = np.concatenate([finite[:1] - 1, finite]) if len(finite) else np.zeros(1)
    candidates = np.sort(np.asarray(candidates, np.float64))
    order = np.argsort(null_minus_best, kind="stable")
    gains = (np.asarray(if_null, np.float64) - np.asarray(if_span, np.float64))[order]
    suffix = np.concatenate([np.cumsum(gains[::-1])[::-1], [0.0]])  # suffix[i]: the gain of leaving order[i:] null
    totals = suffix[np.searchsorted(null_minus_best[order], candidates, side="right")]
    return float(candidates[np.argmax(totals)])  # the first of the best: the smallest
