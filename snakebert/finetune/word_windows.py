"""A word-tagging split as fixed-length windows of word pieces (one graph): each sentence's words are cut into pieces by
the fast tokenizer at once, the pieces of a sentence longer than a window are cut into windows that overlap by a
third of one (nothing is truncated), and each window is framed by the tokenizer's special tokens and padded to
`max_length`, its last position always padding (encoded.RESERVED). The first piece of each word carries its tag in
every window that holds it; its other pieces, the special tokens and the padding carry -100 (no loss), as run_ner.py
labels them. Each word is predicted once, from the window where its first piece has the most context (the most pieces
on its nearer side; the earlier window on a tie). A word the tokenizer makes no piece of (a control character alone)
has no prediction: it is answered the first tag (`O`, where the tags have it). Indexed as the trainers read it, as
EncodedSplit is."""

import math

import numpy as np
import pyarrow as pa
import torch

from .encoded import RESERVED, PaddedRows
from .examples import LABEL, TEXT

IGNORED = -100  # the label the loss skips
UNPREDICTED = -1  # the window of a word that has no piece


def window_starts(pieces: int, width: int, overlap: int) -> list[int]:
    """Where each window of `width` pieces starts, so that every piece of `pieces` lies in one, consecutive windows
    sharing `overlap` pieces (the last window ends at the last piece)."""
    if pieces <= width:
        return [0]
    step = width - overlap
    starts = list(range(0, pieces - width, step))
    return [*starts, pieces - width]


def chosen_windows(first_pieces: np.ndarray, starts: list[int], width: int) -> np.ndarray:
    """For each word's first piece (its position among the sentence's pieces), the window (an index into `starts`)
    where it has the most context on its nearer side; the earliest on a tie."""
    begin = np.asarray(starts)[None, :]
    inside = (first_pieces[:, None] >= begin) & (first_pieces[:, None] < begin + width)
    context = np.minimum(first_pieces[:, None] - begin, begin + width - 1 - first_pieces[:, None])
    return np.where(inside, context, -1).argmax(axis=1)


def framing(tokenizer) -> tuple[list[int], list[int]]:
    """The special tokens the tokenizer puts before and after one text's pieces ([CLS] and [SEP] for BERT)."""
    framed = tokenizer(["x"], is_split_into_words=True)["input_ids"]
    bare = tokenizer(["x"], is_split_into_words=True, add_special_tokens=False)["input_ids"]
    lead = next(index for index in range(len(framed)) if framed[index : index + len(bare)] == bare)
    return framed[:lead], framed[lead + len(bare) :]


def first_pieces(word_of_piece: list[int | None], words: int) -> np.ndarray:
    """The position of each word's first piece among its sentence's pieces (UNPREDICTED for a word without one)."""
    first = np.full(words, UNPREDICTED)
    for piece in range(len(word_of_piece) - 1, -1, -1):  # backwards: each word's first piece is written last
        first[word_of_piece[piece]] = piece
    return first


class WordWindows(PaddedRows):
    def __init__(self, table: pa.Table, tokenizer, max_length: int, padded_to: int = 1) -> None:
        sentences = table.column(TEXT).to_pylist()
        self.truth = table.column(LABEL).to_pylist()
        pieces = tokenizer(sentences, is_split_into_words=True, add_special_tokens=False)
        before, after = framing(tokenizer)
        width = max_length - len(before) - len(after) - RESERVED
        rows, labels, self.word_window, self.word_position = [], [], [], []
        for index, words in enumerate(sentences):
            ids, first = pieces["input_ids"][index], first_pieces(pieces.word_ids(index), len(words))
            starts = window_starts(len(ids), width, width // 3)
            found = first != UNPREDICTED
            window, position = np.full(len(words), UNPREDICTED), np.full(len(words), UNPREDICTED)
            chosen = chosen_windows(first[found], starts, width)
            window[found] = chosen + len(rows)
            position[found] = len(before) + first[found] - np.asarray(starts)[chosen]
            self.word_window.append(window)
            self.word_position.append(position)
            tags = np.asarray(self.truth[index])
            for start in starts:
                rows.append(before + ids[start : start + width] + after)
                inside = found & (first >= start) & (first < start + width)
                labelled = np.full(max_length, IGNORED)
                labelled[len(before) + first[inside] - start] = tags[inside]
                labels.append(labelled)
        padded = tokenizer.pad({"input_ids": rows}, padding="max_length", max_length=max_length, return_tensors="pt",
                               padding_side="right")  # fmt: skip
        self.inputs = {name: padded[name] for name in tokenizer.model_input_names if name in padded}
        self.labels = torch.tensor(np.stack(labels), dtype=torch.long)
        self.count = len(rows)
        self.flat_window, self.flat_position = np.concatenate(self.word_window), np.concatenate(self.word_position)
        self.size = math.ceil(self.count / padded_to) * padded_to

    def example_outputs(self, outputs: np.ndarray) -> list:
        """Each sentence's answers from the windows' `outputs` (one per window and position: a tag id, or a feature
        vector), each word's from its chosen window; a word without a piece is answered 0 (the first tag)."""
        found = []
        for window, position in zip(self.word_window, self.word_position, strict=True):
            answers = outputs[np.maximum(window, 0), np.maximum(position, 0)]
            found.append(np.where((window >= 0).reshape(-1, *[1] * (answers.ndim - 1)), answers, 0))
        return found

    def kept(self, hidden: torch.Tensor, mask: torch.Tensor, start: int) -> np.ndarray:
        """The linear probe's features of the words whose chosen window is in a batch of windows (from `start`): the
        last hidden state of each word's first piece, in word order (a word's chosen window never precedes the
        previous word's)."""
        chosen = (self.flat_window >= start) & (self.flat_window < start + len(hidden))
        rows, positions = self.flat_window[chosen] - start, self.flat_position[chosen]
        return hidden[torch.as_tensor(rows), torch.as_tensor(positions)].float().cpu().numpy()

    def unit_features(self, batches: list[np.ndarray]) -> np.ndarray:
        """Every word's features, from the batches' `kept` features in order; zeros for a word without a piece."""
        found = np.concatenate(batches)
        features = np.zeros((len(self.flat_window), found.shape[1]), dtype=found.dtype)
        features[self.flat_window >= 0] = found
        return features
