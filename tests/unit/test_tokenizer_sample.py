"""The tokenizer's sample: documents cut at whitespace into pieces, an evenly spaced share of the pieces taken, so
that a corpus of a few huge documents gives a sample of the size asked."""

import pyarrow as pa
import pytest

from snakebert.data.corpus import PIECE_CHARS, sample_texts, text_pieces

WORDS = " ".join(f"word{n % 97}" for n in range(40_000))  # 275,869 characters: 28 pieces


@pytest.mark.parametrize("text", [WORDS, "a\nb\tc d" * 5000, "x" * 25_000, "short", ""])
def test_pieces_join_back_to_the_text_and_keep_to_the_limit(text):
    pieces = text_pieces(text, 1000)
    assert "".join(pieces) == text
    assert all(len(piece) <= 1000 for piece in pieces)


def test_pieces_are_cut_at_whitespace_where_there_is_some():
    pieces = text_pieces(WORDS, 1000)
    assert len(pieces) > 250
    assert all(piece[0] == " " for piece in pieces[1:])  # each cut falls just before a space
    assert [len(piece) for piece in text_pieces("x" * 2500, 1000)] == [1000, 1000, 500]


def test_a_corpus_of_one_huge_document_gives_a_sample_of_the_share_asked():
    batches = [pa.array([WORDS])]
    sample = [text for texts in sample_texts(iter(batches), 0.25) for text in texts]
    chars = sum(len(text) for text in sample)
    assert len(sample) == len(text_pieces(WORDS)) // 4 == 7
    assert 0.2 * len(WORDS) < chars < 0.3 * len(WORDS)


def test_documents_shorter_than_a_piece_are_sampled_whole_by_position():
    documents = [f"document {n}" for n in range(100)]
    batches = iter([pa.array(documents[:50]), pa.array(documents[50:])])
    sample = [text for texts in sample_texts(batches, 0.25) for text in texts]
    assert sample == documents[3::4]
    assert max(len(text) for text in documents) < PIECE_CHARS
