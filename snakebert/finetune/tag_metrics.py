"""The metrics of word tagging (named-entity recognition), one table: seqeval's entity F1, precision and recall (its
default mode, micro-averaged over entity types) and the share of words tagged right, computed from per-sentence counts.
Each sentence gives one row of COUNTS; a score is a ratio of the rows' sums, so the bootstrap resamples sentences by
summing rows instead of running seqeval again on each of its thousand resamples. Counting sentence by sentence gives
seqeval's own numbers on the list of sentences, as seqeval ends every entity at the end of its sentence (the unit tests
check it).

A score that is not defined is None, never 0 (seqeval warns and returns 0): precision where no entity is predicted,
recall where no entity is true, F1 where neither is. F1 is 2 correct / (predicted + true), which equals seqeval's
2PR / (P + R) wherever that is defined, and is 0 where entities are true or predicted but none is found right."""

import numpy as np

from .tagged_examples import SCHEMES

TAG_METRICS = ("entity_f1", "entity_precision", "entity_recall", "token_accuracy")  # the first is the default main one
COUNTS = ("entities_correct", "entities_predicted", "entities_true", "words_correct", "words")  # a counts row's columns
READING = (
    "Entities are read as seqeval 1.2.2's default mode reads them: an I- tag after O or after a tag of another type "
    "starts an entity, as in IOB1, and in the plain scheme each word tagged other than O is an entity of its own."
)


def sentence_counts(truth, predicted, names: list[str], scheme: str) -> np.ndarray:
    """One row of COUNTS per sentence (int64, shape (sentences, 5)). truth and predicted hold one sequence of tag ids
    (indexes into names) per sentence; an entity is seqeval's (type, first word, last word), and it is found right
    where the prediction has the same one. The plain scheme's tags name a type alone: each is read as its B- tag."""
    from seqeval.metrics.sequence_labeling import get_entities  # at the first count: the workflow's parse needs none

    if scheme not in SCHEMES:
        raise ValueError(f"unknown tagging scheme {scheme!r}: one of {', '.join(SCHEMES)}")
    labels = [name if scheme != "plain" or name == "O" else "B-" + name for name in names]
    counts = np.zeros((len(truth), len(COUNTS)), dtype=np.int64)
    for sentence, (true_ids, predicted_ids) in enumerate(zip(truth, predicted, strict=True)):
        if len(true_ids) != len(predicted_ids):
            raise ValueError(
                f"sentence {sentence} has {len(true_ids)} true tags but {len(predicted_ids)} predicted ones"
            )
        true_entities = set(get_entities([labels[tag] for tag in true_ids]))
        predicted_entities = set(get_entities([labels[tag] for tag in predicted_ids]))
        words_correct = sum(
            true_tag == predicted_tag for true_tag, predicted_tag in zip(true_ids, predicted_ids, strict=True)
        )
        counts[sentence] = (
            len(true_entities & predicted_entities),
            len(predicted_entities),
            len(true_entities),
            words_correct,
            len(true_ids),
        )
    return counts


def tag_scores(metrics: list[str], counts: np.ndarray) -> dict[str, float | None]:
    """{metric: score} for the metrics asked, in their order, from one row of COUNTS or the rows of a table of them
    (summed); a score that is not defined (module docstring) is None."""
    correct, predicted, true, words_correct, words = (int(n) for n in np.reshape(counts, (-1, len(COUNTS))).sum(0))
    ratios = {
        "entity_f1": (2 * correct, predicted + true),
        "entity_precision": (correct, predicted),
        "entity_recall": (correct, true),
        "token_accuracy": (words_correct, words),
    }
    return {name: ratios[name][0] / ratios[name][1] if ratios[name][1] else None for name in metrics}
