"""A word-tagging split cut into windows of word pieces (WordWindows), with the tiny BERT WordPiece tokenizer and the
tiny RoBERTa byte-level BPE one: every word is predicted exactly once, from its first piece in its chosen window,
whatever the sentence's length; nothing is truncated; consecutive windows overlap as window_starts says and each is
framed by the tokenizer's own special tokens; the chosen window is the one where the first piece has the most
context (a brute force agrees, the earliest on a tie); only first pieces carry a tag; a word without a piece is
answered 0; every row has one shape and the split is padded with copies of row 0; and the linear probe's per-word
features (kept, unit_features) come from each word's chosen window and position."""

import math

import numpy as np
import pyarrow as pa
import pytest
import torch
from tiny_corpus import DOCS
from transformers import AutoTokenizer

from snakebert.finetune.encoded import RESERVED
from snakebert.finetune.examples import LABEL, TEXT
from snakebert.finetune.problems import WORDS_APART
from snakebert.finetune.word_windows import IGNORED, WordWindows, chosen_windows, framing, window_starts

MAX_LENGTH = 16
WIDTH = MAX_LENGTH - 2 - RESERVED  # both tokenizers frame a text with one token on each side; the rest is padding
OVERLAP = WIDTH // 3
SENTINEL = -1  # an output no tag equals: the answer read from a position that carries no tag
NO_PIECE = "\u200b"  # a zero-width space: the BERT tokenizer makes no piece of it
VOCABULARY = " ".join(DOCS).replace(".", " .").replace(",", " ,").split() + ["zzqx", "Quixotically", "ünïcødé"]


def words(count: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [VOCABULARY[index] for index in rng.integers(len(VOCABULARY), size=count)]


SENTENCES = [["the"], ["Rivers", "carry", "sediment", "to", "the", "sea", "."], words(200, 0), words(40, 1), ["zzqx"]]


@pytest.fixture(scope="module", params=["bert", "roberta"])
def tokenizer(request):
    """Each tokenizer as a word-tagging run loads it (problems.WORDS_APART)."""
    data = request.getfixturevalue("tiny_data" if request.param == "bert" else "roberta_data")
    return AutoTokenizer.from_pretrained(data.tokenizer, **WORDS_APART)


def test_words_given_apart_are_cut_as_the_same_words_in_running_text(tokenizer):
    """Each word is a word of its own, as after a space: a byte-level BPE tokenizer loaded without WORDS_APART cuts
    `committee` given apart as if glued to `the` (t he c o m mit tee)."""
    sentence = ["the", "committee", "met", "on", "tuesday"]
    apart = tokenizer(sentence, is_split_into_words=True, add_special_tokens=False)["input_ids"]
    running = tokenizer(" " + " ".join(sentence), add_special_tokens=False)["input_ids"]
    assert apart == running


def tagged(sentences: list[list[str]]) -> tuple[pa.Table, list[list[int]]]:
    """The sentences with a distinct tag id (from 1) for every word of every sentence."""
    tags, next_tag = [], 1
    for sentence in sentences:
        tags.append(list(range(next_tag, next_tag + len(sentence))))
        next_tag += len(sentence)
    columns = {TEXT: pa.array(sentences, pa.list_(pa.string())), LABEL: pa.array(tags, pa.list_(pa.int64()))}
    return pa.table(columns), tags


def pieces(tokenizer, sentence: list[str]) -> tuple[list[int], list[int | None]]:
    """The sentence's pieces, tokenized alone, and the position of each word's first piece (None: it has none)."""
    encoded = tokenizer(sentence, is_split_into_words=True, add_special_tokens=False)
    word_ids = encoded.word_ids()
    return encoded["input_ids"], [word_ids.index(word) if word in word_ids else None for word in range(len(sentence))]


def windows_of(tokenizer, sentences: list[list[str]]):
    """Per sentence: its pieces, its words' first pieces, its window starts and the index of its first window."""
    found, row = [], 0
    for sentence in sentences:
        ids, first = pieces(tokenizer, sentence)
        starts = window_starts(len(ids), WIDTH, OVERLAP)
        found.append((ids, first, starts, row))
        row += len(starts)
    return found


def sentinel_outputs(split: WordWindows) -> np.ndarray:
    """Outputs that answer, at each window and position, the label there (SENTINEL where it is IGNORED)."""
    outputs = split.labels.numpy().copy()
    outputs[outputs == IGNORED] = SENTINEL
    return outputs


def length(split: WordWindows, row: int) -> int:
    """The row's tokens that are not padding."""
    return int(split.inputs["attention_mask"][row].sum())


def test_the_framing_is_the_tokenizers_own(tokenizer):
    assert framing(tokenizer) == ([tokenizer.cls_token_id], [tokenizer.sep_token_id])
    if tokenizer.bos_token_id is not None:  # RoBERTa: <s> and </s>
        assert framing(tokenizer) == ([tokenizer.bos_token_id], [tokenizer.eos_token_id])


def test_every_word_is_predicted_exactly_once_from_its_first_piece(tokenizer):
    table, tags = tagged(SENTENCES)
    split = WordWindows(table, tokenizer, MAX_LENGTH)
    expected = windows_of(tokenizer, SENTENCES)
    assert split.count == sum(len(starts) for _, _, starts, _ in expected)
    assert len(expected[2][2]) > 10  # the long sentence: many windows
    answers = split.example_outputs(sentinel_outputs(split))
    assert [answer.tolist() for answer in answers] == tags
    for (_, _, starts, first_row), window in zip(expected, split.word_window, strict=True):
        assert ((window >= first_row) & (window < first_row + len(starts))).all()  # a window of its own sentence
    for row in range(split.count):
        ids, size = split.inputs["input_ids"][row].tolist(), length(split, row)
        assert split.inputs["attention_mask"][row].tolist() == [1] * size + [0] * (MAX_LENGTH - size)
        assert ids[0] == tokenizer.cls_token_id
        assert ids[size - 1] == tokenizer.sep_token_id
        assert not {tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id} & set(ids[1 : size - 1])
        assert ids[size:] == [tokenizer.pad_token_id] * (MAX_LENGTH - size)


def test_no_piece_of_a_long_sentence_is_truncated(tokenizer):
    table, _ = tagged(SENTENCES)
    split = WordWindows(table, tokenizer, MAX_LENGTH)
    for ids, _, starts, first_row in windows_of(tokenizer, SENTENCES):
        rebuilt = [None] * len(ids)
        for row, start in enumerate(starts, first_row):
            inner = split.inputs["input_ids"][row, 1 : length(split, row) - 1].tolist()
            assert len(inner) == min(WIDTH, len(ids))
            for offset, piece in enumerate(inner):
                assert rebuilt[start + offset] in (None, piece)  # overlapping windows hold the same pieces
                rebuilt[start + offset] = piece
        assert rebuilt == ids


@pytest.mark.parametrize(
    ("count", "width", "overlap", "starts"),
    [(0, 14, 4, [0]), (5, 14, 4, [0]), (14, 14, 4, [0]), (15, 14, 4, [0, 1]), (24, 14, 4, [0, 10]),
     (30, 14, 4, [0, 10, 16]), (34, 14, 4, [0, 10, 20]), (7, 3, 0, [0, 3, 4])],
)  # fmt: skip
def test_window_starts_of_examples(count, width, overlap, starts):
    assert window_starts(count, width, overlap) == starts


def test_consecutive_windows_overlap_by_the_overlap_and_cover_every_piece():
    for count in range(0, 70):
        for width in range(1, 20):
            for overlap in sorted({0, width // 3, width - 1}):
                starts = window_starts(count, width, overlap)
                if count <= width:
                    assert starts == [0]
                    continue
                step = width - overlap
                assert starts[0] == 0
                assert starts[-1] + width == count  # the last window ends at the last piece
                assert all(later - earlier == step for earlier, later in zip(starts[:-2], starts[1:-1], strict=True))
                assert 0 < starts[-1] - starts[-2] <= step  # the last overlaps its neighbour at least as much
                assert len(starts) == math.ceil((count - width) / step) + 1  # no more windows than needed
                assert set().union(*(range(start, start + width) for start in starts)) == set(range(count))


def brute_force_choice(first: int, starts: list[int], width: int) -> int:
    best, most = None, -1
    for window, start in enumerate(starts):
        if start <= first < start + width:
            context = min(first - start, start + width - 1 - first)
            if context > most:  # strictly more: the earliest wins a tie
                best, most = window, context
    return best


def test_the_chosen_window_gives_the_most_context_on_the_nearer_side_the_earliest_on_a_tie():
    # width 6, windows at 0 and 3: piece 4 has 1 piece after it in the first, 1 before it in the second (a tie)
    assert chosen_windows(np.array([0, 3, 4, 5, 8]), [0, 3], 6).tolist() == [0, 0, 0, 1, 1]
    rng = np.random.default_rng(0)
    for _ in range(300):
        count, width = int(rng.integers(1, 80)), int(rng.integers(1, 20))
        starts = window_starts(count, width, int(rng.integers(0, width)))
        first = np.sort(rng.choice(count, size=int(rng.integers(0, count + 1)), replace=False))
        expected = [brute_force_choice(int(piece), starts, width) for piece in first]
        assert chosen_windows(first, starts, width).tolist() == expected


def test_only_first_pieces_carry_a_tag(tokenizer):
    table, tags = tagged(SENTENCES)
    split = WordWindows(table, tokenizer, MAX_LENGTH)
    assert split.labels.shape == (split.count, MAX_LENGTH)
    expected_windows = windows_of(tokenizer, SENTENCES)
    assert len(expected_windows[2][0]) > len(SENTENCES[2])  # the long sentence has continuation pieces
    for (_, first, starts, first_row), sentence_tags in zip(expected_windows, tags, strict=True):
        for row, start in enumerate(starts, first_row):
            inside = [(piece, tag) for piece, tag in zip(first, sentence_tags, strict=True)
                      if piece is not None and start <= piece < start + WIDTH]  # fmt: skip
            labels = split.labels[row].tolist()
            assert sum(label != IGNORED for label in labels) == len(inside)
            expected = [IGNORED] * MAX_LENGTH
            for piece, tag in inside:
                expected[1 + piece - start] = tag
            assert labels == expected  # continuation pieces, the framing and the padding: IGNORED


def test_a_word_without_a_piece_is_answered_zero_and_the_others_keep_their_answers(tiny_data):
    """With the BERT tokenizer, which makes no piece of a zero-width space (a byte-level one makes pieces of any
    character)."""
    tokenizer = AutoTokenizer.from_pretrained(tiny_data.tokenizer)
    assert pieces(tokenizer, [NO_PIECE])[0] == []
    sentences = [[NO_PIECE], ["the", NO_PIECE, "cat"], [NO_PIECE, *words(60, 2), NO_PIECE, *words(60, 3), NO_PIECE]]
    table, tags = tagged(sentences)
    split = WordWindows(table, tokenizer, MAX_LENGTH)
    expected = [[0 if word == NO_PIECE else tag for word, tag in zip(sentence, sentence_tags, strict=True)]
                for sentence, sentence_tags in zip(sentences, tags, strict=True)]  # fmt: skip
    outputs = sentinel_outputs(split)
    assert [answer.tolist() for answer in split.example_outputs(outputs)] == expected
    vectors = np.stack([outputs, outputs * 10], axis=-1)  # a feature vector per window and position
    found = split.example_outputs(vectors)
    assert [answer.tolist() for answer in found] == [[[tag, tag * 10] for tag in tags] for tags in expected]
    assert split.count == 1 + 1 + len(window_starts(len(pieces(tokenizer, sentences[2])[0]), WIDTH, OVERLAP))


def test_every_row_has_one_shape_and_the_padding_rows_repeat_the_first(tokenizer):
    table, _ = tagged(SENTENCES)
    count = WordWindows(table, tokenizer, MAX_LENGTH).count
    for padded_to in (1, 4, 7, count + 1):  # count + 1: a padding row at least
        split = WordWindows(table, tokenizer, MAX_LENGTH, padded_to=padded_to)
        assert split.count == count
        assert len(split) == math.ceil(count / padded_to) * padded_to
        assert len(split) % padded_to == 0 and len(split) - count < padded_to
        first = split[0]
        assert {"input_ids", "attention_mask", "labels"} <= set(first)
        for index in range(len(split)):
            item = split[index]
            assert item.keys() == first.keys()
            assert all(value.shape == (MAX_LENGTH,) for value in item.values())
            if index >= count:
                assert all(torch.equal(item[name], first[name]) for name in first)
            assert all(torch.equal(item[name], value) for name, value in split[(3, index)].items())


def test_the_probes_word_features_come_from_each_words_chosen_window_and_position(tokenizer):
    sentences = [*SENTENCES, ["the", NO_PIECE, "cat"]]
    table, tags = tagged(sentences)
    split = WordWindows(table, tokenizer, MAX_LENGTH, padded_to=3)
    rows = len(split)
    hidden = torch.zeros(rows, MAX_LENGTH, 2)
    hidden[..., 0] = torch.arange(rows)[:, None]
    hidden[..., 1] = torch.arange(MAX_LENGTH)[None, :]
    batches = []
    for start in range(0, rows, 3):
        mask = torch.stack([split[index]["attention_mask"] for index in range(start, start + 3)])
        batches.append(split.kept(hidden[start : start + 3], mask, start))
    features = split.unit_features(batches)
    window, position = np.concatenate(split.word_window), np.concatenate(split.word_position)
    has_piece = np.array([pieces(tokenizer, [word])[0] != [] for sentence in sentences for word in sentence])
    assert (window >= 0).tolist() == has_piece.tolist()
    assert features.shape == (len(window), 2)
    assert features[has_piece].tolist() == np.stack([window, position], axis=1)[has_piece].tolist()
    assert (features[~has_piece] == 0).all()
    flat_tags = np.concatenate(tags)
    row, place = features[has_piece].astype(int).T
    assert split.labels[row, place].tolist() == flat_tags[has_piece].tolist()  # each word's own first piece
