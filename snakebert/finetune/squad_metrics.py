"""The metrics of extractive question answering (SQuAD): exact match and F1 over answer words, with the official
normalisation (lowercase; punctuation removed; the articles a, an and the removed; white space collapsed), written
once here. No well-kept package gives them offline: `evaluate`'s squad metric is a script in a Hub Space
(evaluate-metric/squad), fetched when it is loaded.

Scores follow the official SQuAD v2.0 evaluation script, which equals v1.1's wherever every gold answer keeps a word
after normalisation: gold answers that normalise to nothing are dropped, and a question left with none (an
unanswerable v2 question) has the gold answer "": a prediction scores 1 on it if it normalises to nothing ("", or an
article alone) and 0 otherwise, for exact match and for F1 alike. A question's score is the best over its gold
answers. Scores are shares in [0, 1], not percentages.

Each question gives one row of COUNTS, and a score is a ratio of the rows' sums, so the bootstrap resamples questions
(or articles) by summing rows, as tag_metrics.py's counts do."""

import re
import string
from collections import Counter

import numpy as np

QA_METRICS = ("squad_f1", "exact_match")  # the first is the default main one
COUNTS = ("exact_match", "f1", "questions")  # a counts row's columns
COLUMN = {"exact_match": 0, "squad_f1": 1}  # each metric's column of COUNTS
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def normalized(text: str) -> str:
    """An answer as SQuAD compares answers: lowercased, ASCII punctuation removed, then the articles, then white space
    collapsed to single spaces (in that order, as the official script does it)."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def exact_match(gold: str, predicted: str) -> int:
    """1 if the two answers are equal once normalised, else 0."""
    return int(normalized(gold) == normalized(predicted))


def f1(gold: str, predicted: str) -> float:
    """The F1 of the normalised answers' words (each word counted as often as both have it); 1 if neither has a word,
    0 if only one has."""
    gold_words, predicted_words = normalized(gold).split(), normalized(predicted).split()
    if not gold_words or not predicted_words:
        return float(gold_words == predicted_words)
    same = sum((Counter(gold_words) & Counter(predicted_words)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted_words), same / len(gold_words)
    return 2 * precision * recall / (precision + recall)


def gold_texts(truth: list) -> list[list[str]]:
    """Each question's gold answer texts, from its answers as read ({text, start}) or as texts."""
    return [[gold["text"] if isinstance(gold, dict) else gold for gold in answers] for answers in truth]


def question_counts(truth: list[list[str]], predicted: list[str]) -> np.ndarray:
    """One row of COUNTS per question (float64, shape (questions, 3)): its exact match and F1, each the best over its
    gold answers, and 1. truth holds each question's gold answer texts (none: unanswerable), predicted each question's
    answer ("" for no answer)."""
    if len(truth) != len(predicted):
        raise ValueError(f"{len(truth)} questions but {len(predicted)} predicted answers")
    counts = np.ones((len(truth), len(COUNTS)))
    for question, (answers, answer) in enumerate(zip(truth, predicted, strict=True)):
        golds = [gold for gold in answers if normalized(gold)] or [""]
        counts[question, :2] = max(exact_match(gold, answer) for gold in golds), max(f1(gold, answer) for gold in golds)
    return counts


def qa_scores(metrics: list[str], counts: np.ndarray) -> dict[str, float | None]:
    """{metric: score} for the metrics asked (of QA_METRICS), in their order, from one row of COUNTS or the rows of a
    table of them (summed); None where there is no question."""
    sums = np.reshape(counts, (-1, len(COUNTS))).sum(0)
    return {name: float(sums[COLUMN[name]] / sums[-1]) if sums[-1] else None for name in metrics}
