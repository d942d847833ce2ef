"""The lexical baseline of extractive question answering, which needs no model: each question is answered by the
sentence of its context that shares the most distinct words with it, predicted whole (the earliest such sentence on a
tie). Words are compared as SQuAD's metrics normalise answers (squad_metrics.normalized: lowercase, no punctuation,
no articles), so every other word counts, question words and stop words included. In a task with unanswerable
questions (SQuAD v2.0), a question that shares no word with any sentence of its context is answered "" (no answer).

It is the sentence-retrieval baseline, a weak one: a sentence is far longer than an answer, so exact match is near 0 and
F1 rewards finding the right sentence. It is not the SQuAD paper's sliding-window baseline, which scores each candidate
span by the question words around it.

Sentences are cut after ., ! or ? (and any closing quotes or brackets) that white space follows: "3.5" stays whole, "Dr.
Smith" is cut in two. Its answers are scored as a model's are (squad_metrics.py)."""

import itertools
import re

import pyarrow as pa

from .examples import PAIR, TEXT
from .squad_metrics import normalized

_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?=\s)")


def sentence_spans(context: str) -> list[tuple[int, int]]:
    """The (start, end) characters of each sentence of the context, white space around it left out; none empty."""
    cuts = [0, *(end.end() for end in _SENTENCE_END.finditer(context)), len(context)]
    spans = []
    for start, end in itertools.pairwise(cuts):
        text = context[start:end]
        if text.strip():
            spans.append((start + len(text) - len(text.lstrip()), end - len(text) + len(text.rstrip())))
    return spans


def words(text: str) -> set[str]:
    """The distinct words of a text, normalised as SQuAD's metrics normalise answers."""
    return set(normalized(text).split())


def sentence_answers(table: pa.Table, allow_unanswerable: bool) -> list[str]:
    """Each question's answer (a row of the flat table of squad_examples.py: `text` the question, `text_pair` its
    context): its context's sentence that shares the most words with it, or "" where allow_unanswerable and none
    shares a word."""
    sentences = {}  # context: its sentences' (start, end, words), each context cut once for all its questions
    answers = []
    for question, context in zip(table.column(TEXT).to_pylist(), table.column(PAIR).to_pylist(), strict=True):
        if context not in sentences:
            sentences[context] = [(start, end, words(context[start:end])) for start, end in sentence_spans(context)]
        asked = words(question)
        overlaps = [len(asked & found) for _, _, found in sentences[context]]
        best = max(range(len(overlaps)), key=overlaps.__getitem__)  # the first of the highest
        start, end, _ = sentences[context][best]
        answers.append("" if allow_unanswerable and overlaps[best] == 0 else context[start:end])
    return answers
