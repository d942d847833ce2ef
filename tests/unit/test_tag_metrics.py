"""The word-tagging metrics against seqeval's own calls on hand-made sentences, sentence by sentence and on a bootstrap
resample of them, with None where seqeval warns that a score is undefined (and says 0)."""

import warnings

import numpy as np
import pytest
from seqeval.metrics import accuracy_score, f1_score, precision_score, recall_score
from sklearn.exceptions import UndefinedMetricWarning

from snakebert.finetune.tag_metrics import COUNTS, TAG_METRICS, sentence_counts, tag_scores

CASES = {  # (true tags, predicted tags) of a few sentences each
    "perfect": (
        [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG", "I-ORG"], ["O"]],
        [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG", "I-ORG"], ["O"]],
    ),
    "stray I- starts an entity in the truth": (
        [["O", "I-PER", "I-PER"], ["B-LOC", "O"], ["I-ORG", "O", "B-PER"]],
        [["B-PER", "I-PER", "I-PER"], ["B-LOC", "O"], ["B-ORG", "O", "B-PER"]],
    ),
    "stray I- starts an entity in the prediction": (
        [["B-PER", "I-PER", "I-PER"], ["B-LOC", "O"], ["O", "B-ORG", "I-ORG"]],
        [["O", "I-PER", "I-PER"], ["B-LOC", "O"], ["O", "I-ORG", "I-ORG"]],
    ),
    "type switch inside a span": (
        [["B-PER", "I-PER", "O"], ["B-LOC", "I-LOC", "I-LOC"], ["O", "B-ORG"]],
        [["B-PER", "I-LOC", "O"], ["B-LOC", "I-LOC", "I-PER"], ["O", "B-ORG"]],
    ),
    "boundary errors": (
        [["B-PER", "I-PER", "I-PER", "O"], ["O", "B-LOC", "I-LOC"], ["B-ORG", "B-ORG", "O"]],
        [["B-PER", "I-PER", "O", "O"], ["B-LOC", "I-LOC", "I-LOC"], ["B-ORG", "I-ORG", "O"]],
    ),
    "iobes": (
        [["S-PER", "O", "B-LOC", "E-LOC"], ["B-ORG", "I-ORG", "E-ORG"], ["E-PER", "S-LOC", "I-LOC"]],
        [["S-PER", "O", "B-LOC", "I-LOC"], ["B-ORG", "E-ORG", "S-ORG"], ["E-PER", "S-LOC", "E-LOC"]],
    ),
    "entities at sentence ends": (  # a sentence's first I- tag never continues the last sentence's entity
        [["O", "B-PER"], ["I-PER", "O"], ["B-LOC", "I-LOC"], ["I-LOC"]],
        [["O", "B-PER"], ["B-PER", "O"], ["B-LOC", "I-LOC"], ["B-LOC"]],
    ),
    "no entity predicted": (
        [["B-PER", "O"], ["O", "O"], ["B-LOC", "I-LOC"]],
        [["O", "O"], ["O", "O"], ["O", "O"]],
    ),
    "no entity true": (
        [["O", "O"], ["O"], ["O", "O"]],
        [["O", "B-PER"], ["O"], ["O", "O"]],
    ),
    "no entity at all": (
        [["O", "O"], ["O"]],
        [["O", "O"], ["O"]],
    ),
}


def tag_ids(sentences: list[list[str]], names: list[str]) -> list[list[int]]:
    return [[names.index(tag) for tag in sentence] for sentence in sentences]


def counted(truth: list[list[str]], predicted: list[list[str]], scheme: str = "iob2") -> np.ndarray:
    """sentence_counts of sentences of tag names."""
    names = sorted({tag for sentences in (truth, predicted) for sentence in sentences for tag in sentence})
    return sentence_counts(tag_ids(truth, names), tag_ids(predicted, names), names, scheme)


def seqevals(truth: list[list[str]], predicted: list[list[str]]) -> dict[str, float | None]:
    """seqeval's scores, None where it warns that the score is undefined."""
    found = {}
    for name, score in [
        ("entity_f1", f1_score),
        ("entity_precision", precision_score),
        ("entity_recall", recall_score),
    ]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = score(truth, predicted)
        found[name] = None if any(issubclass(w.category, UndefinedMetricWarning) for w in caught) else value
    return found | {"token_accuracy": accuracy_score(truth, predicted)}


@pytest.mark.parametrize("case", CASES)
def test_scores_are_seqevals(case):
    truth, predicted = CASES[case]
    counts = counted(truth, predicted, "iobes" if case == "iobes" else "iob2")
    assert counts.shape == (len(truth), len(COUNTS)) and counts.dtype == np.int64
    assert tag_scores(list(TAG_METRICS), counts) == pytest.approx(seqevals(truth, predicted), rel=1e-12)


def test_a_stray_i_tag_starts_an_entity_as_in_iob1():
    truth, predicted = CASES["stray I- starts an entity in the truth"]
    counts = counted(truth, predicted)
    assert counts.tolist() == [[0, 1, 1, 2, 3], [1, 1, 1, 2, 2], [2, 2, 2, 2, 3]]  # I-ORG and B-ORG: the same entity


def test_undefined_scores_are_none_and_a_prediction_of_no_entity_scores_f1_zero():
    assert tag_scores(list(TAG_METRICS), counted(*CASES["no entity predicted"])) == {
        "entity_f1": 0.0, "entity_precision": None, "entity_recall": 0.0, "token_accuracy": 0.5
    }  # fmt: skip
    assert tag_scores(list(TAG_METRICS), counted(*CASES["no entity at all"])) == {
        "entity_f1": None, "entity_precision": None, "entity_recall": None, "token_accuracy": 1.0
    }  # fmt: skip


def test_the_plain_scheme_makes_each_tagged_word_an_entity():
    truth = [["PER", "PER", "O", "LOC"], ["O", "LOC"], ["LOC", "PER"]]
    predicted = [["PER", "O", "O", "LOC"], ["LOC", "LOC"], ["LOC", "LOC"]]
    counts = counted(truth, predicted, "plain")
    as_b = [[[tag if tag == "O" else "B-" + tag for tag in sentence] for sentence in sentences] for sentences in
            (truth, predicted)]  # fmt: skip
    assert tag_scores(list(TAG_METRICS), counts) == pytest.approx(seqevals(*as_b), rel=1e-12)
    assert counts[:, :3].sum(0).tolist() == [4, 6, 6]


def test_summed_counts_of_a_resample_are_seqevals_on_the_resampled_sentences():
    truth, predicted = CASES["boundary errors"]
    counts = counted(truth, predicted)
    rows = [0, 0, 2]
    found = tag_scores(list(TAG_METRICS), counts[rows])
    assert found == pytest.approx(seqevals([truth[i] for i in rows], [predicted[i] for i in rows]), rel=1e-12)


def test_random_sentences_and_resamples_score_as_seqeval():
    names = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    draws = np.random.default_rng(0)
    truth = [draws.integers(0, len(names), draws.integers(1, 9)).tolist() for _ in range(200)]
    predicted = [[tag if draws.random() < 0.7 else int(draws.integers(0, len(names))) for tag in s] for s in truth]
    counts = sentence_counts(truth, predicted, names, "iob2")
    for rows in [np.arange(len(truth)), *(draws.integers(0, len(truth), len(truth)) for _ in range(5))]:
        named = [[[names[tag] for tag in sentences[row]] for row in rows] for sentences in (truth, predicted)]
        assert tag_scores(list(TAG_METRICS), counts[rows]) == pytest.approx(seqevals(*named), rel=1e-12)


def test_scores_come_as_asked_from_one_row_as_python_floats():
    found = tag_scores(["token_accuracy", "entity_recall"], np.array([1, 2, 4, 3, 4]))
    assert list(found) == ["token_accuracy", "entity_recall"] and found == {
        "token_accuracy": 0.75,
        "entity_recall": 0.25,
    }
    assert all(type(value) is float for value in found.values())


def test_a_sentence_whose_prediction_has_another_length_is_refused():
    with pytest.raises(ValueError, match="sentence 1 has 2 true tags but 3 predicted"):
        sentence_counts([[0], [0, 1]], [[0], [0, 1, 1]], ["O", "B-PER"], "iob2")
