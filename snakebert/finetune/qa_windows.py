"""An extractive question-answering split as fixed-length windows (one graph): each question and its context are cut by
the fast tokenizer at once into windows of the question followed by a part of the context (truncation only_second),
consecutive windows of a question sharing `stride` context pieces, each padded on the right to `max_length`, its
last position always padding (encoded.RESERVED). The stride is a quarter of max_length (run_qa.py shares 128 pieces of
384, a third): it leaves a question more room at the short max_length of small runs, and from max_length 120 on it
holds qa_postprocess.MAX_ANSWER_LENGTH pieces, so every answer the post-processing may give lies whole in a window.

A window's training labels are start_positions and end_positions (AutoModelForQuestionAnswering's arguments): the
first gold answer's first and last context pieces where the answer lies whole in the window's context, else the first
position (the [CLS] token) for both, as run_qa.py labels them; an unanswerable question (SQuAD v2.0) labels [CLS] in
every window. Each question is answered from the start and end logits of all its windows by run_qa.py's
post-processing (qa_postprocess.py): its best span cut from the context by the pieces' character offsets, or "" (no
answer) where `threshold` is set (SQuAD v2.0, chosen on validation by qa_postprocess.chosen_threshold) and the null
score exceeds the best span's by more than it. Indexed as the trainers read it, as EncodedSplit is."""

import math

import numpy as np
import pyarrow as pa
import torch

from .encoded import RESERVED, PaddedRows
from .examples import LABEL, PAIR, TEXT
from .qa_postprocess import Spans, answers_at, best_spans, chosen_threshold
from .squad_examples import ID, SquadWhere, check_question_lengths
from .squad_metrics import COLUMN, gold_texts, question_counts

CONTEXT = 1  # a context piece's sequence id (the question's is 0, a special token's None)
NO_SPAN = (0, 0)  # the labels of a window that does not hold the answer: the first position ([CLS]) for both


def qa_stride(max_length: int) -> int:
    """The context pieces that consecutive windows of a question share."""
    return max_length // 4


def checked_questions(table: pa.Table, tokenizer, max_length: int, where: str) -> None:
    """Refuse the first question of `table` too long for a window of max_length (less RESERVED) that holds more context
    than the stride (squad_examples.check_question_lengths), naming it by `where` (the split), its row and its id."""
    pieces = tokenizer(table.column(TEXT).to_pylist(), add_special_tokens=False)["input_ids"]
    special = tokenizer.num_special_tokens_to_add(pair=True)
    lengths = np.asarray([len(found) for found in pieces], dtype=np.int64)
    named = SquadWhere(where, ids=tuple(table.column(ID).to_pylist()))
    check_question_lengths(lengths, max_length - RESERVED, special, qa_stride(max_length), named)


def answer_span(offsets: list[tuple[int, int] | None], start: int, end: int) -> tuple[int, int]:
    """The positions of a window's first and last context pieces of the answer at characters [start, end) of its
    context; NO_SPAN where the window's context does not hold it whole."""
    inside = [position for position, span in enumerate(offsets) if span is not None]
    if not inside or offsets[inside[0]][0] > start or offsets[inside[-1]][1] < end:
        return NO_SPAN
    first = max(position for position in inside if offsets[position][0] <= start)
    last = min(position for position in inside if offsets[position][1] >= end)
    return first, last


class QAWindows(PaddedRows):
    threshold: float | None = None  # None: every question answered (SQuAD v1.1); set for v2.0 (chosen on validation)

    def __init__(self, table: pa.Table, tokenizer, max_length: int, padded_to: int = 1, where: str = "split") -> None:
        questions, self.contexts = table.column(TEXT).to_pylist(), table.column(PAIR).to_pylist()
        self.truth = table.column(LABEL).to_pylist()  # each question's gold answers as read: [{text, start}, ...]
        self.stride = qa_stride(max_length)
        checked_questions(table, tokenizer, max_length, where)
        found = tokenizer(questions, self.contexts, truncation="only_second", max_length=max_length - RESERVED,
                          stride=self.stride, return_overflowing_tokens=True, return_offsets_mapping=True)  # fmt: skip
        self.window_question = np.asarray(found["overflow_to_sample_mapping"], dtype=np.int64)
        self.offsets, starts, ends = [], [], []
        for window, question in enumerate(self.window_question):
            parts = found.sequence_ids(window)
            offsets = [tuple(span) if part == CONTEXT else None
                       for span, part in zip(found["offset_mapping"][window], parts, strict=True)]  # fmt: skip
            self.offsets.append(offsets)
            first = self.truth[question][0] if self.truth[question] else None
            start, end = answer_span(offsets, first["start"], first["start"] + len(first["text"])) if first else NO_SPAN
            starts.append(start)
            ends.append(end)
        inputs = {name: found[name] for name in tokenizer.model_input_names if name in found}
        padded = tokenizer.pad(inputs, padding="max_length", max_length=max_length, return_tensors="pt",
                               padding_side="right")  # fmt: skip
        self.inputs = {name: padded[name] for name in tokenizer.model_input_names if name in padded}
        self.labels = torch.tensor(np.stack([starts, ends], axis=1), dtype=torch.long)  # (windows, 2)
        self.count = len(self.window_question)
        self.size = math.ceil(self.count / padded_to) * padded_to

    def __getitem__(self, key: int | tuple[int, int]) -> dict:
        """A window's inputs with its start_positions and end_positions (the arguments of a question-answering head)
        in place of `labels`."""
        found = super().__getitem__(key)
        start, end = found.pop("labels")
        return {**found, "start_positions": start, "end_positions": end}

    def spans(self, outputs: np.ndarray) -> Spans:
        """Each question's best span and null score from `outputs`: the start and end logits stacked, (windows,
        max_length, 2); rows past `count` (the padding of the last evaluation batch) are left out."""
        outputs = np.asarray(outputs)[: self.count]
        return best_spans(outputs[..., 0], outputs[..., 1], self.offsets, self.window_question, self.contexts)

    def example_outputs(self, outputs: np.ndarray) -> list[str]:
        """Each question's answer ("" for none) from the windows' stacked start and end logits (spans), at the split's
        `threshold` (qa_postprocess.answers_at)."""
        return answers_at(self.spans(outputs), self.threshold)

    def fitted_threshold(self, outputs: np.ndarray, metric: str) -> float:
        """The no-answer threshold (qa_postprocess.chosen_threshold) under which the answers from `outputs` score this
        split best on `metric` (exact_match or squad_f1)."""
        spans, golds = self.spans(outputs), gold_texts(self.truth)
        if_null = question_counts(golds, [""] * len(golds))[:, COLUMN[metric]]
        if_span = question_counts(golds, spans.texts)[:, COLUMN[metric]]
        return chosen_threshold(spans.null_minus_best, if_null, if_span)
