"""The downstream problems, one table: what differs between a class per text (or text pair), a number, a tag per word
and an answer span in a context (extractive question answering), as data and small functions, so that everything
else (splits, rates, seeds, folds, both protocols, the bootstrap, the verdicts) is one path for every problem. Adding
a problem is an entry in PROBLEMS, its name in the schema's `problem` enum, its baselines (baselines.py) and its tests
(tests/unit/test_tables.py checks that the enum equals the keys). The workflow's parse checks a task's metrics against
its problem, so this module stays light: torch, transformers, seqeval and scikit-learn are imported by the functions
that use them."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .examples import GROUP, LABEL, PAIR, TEXT, class_labels, examples, number_labels
from .metrics import CLASS_METRICS, NUMBER_METRICS, scores
from .squad_examples import squad_table
from .squad_metrics import QA_METRICS, gold_texts, qa_scores, question_counts
from .tag_metrics import TAG_METRICS, sentence_counts, tag_scores
from .tagged_examples import tag_names, tagged_examples
from .task_file import TaskFile

DEFAULT_PROBLEM = "classification"  # the problem of a task (or preset) that names none


@dataclass(frozen=True)
class Problem:
    """What one problem brings: its metrics, how its labels are read, prepared and counted, its model's head and how
    the head's outputs become predictions and scores, and its baselines' models. The functions that take the class
    names (a task's `labels`) are given None for a problem without classes."""

    default_metrics: tuple[str, ...]  # a task's metrics where it names none; the first chooses the best epoch
    metrics: tuple[str, ...]  # the metrics that measure it (metrics.py, tag_metrics.py)
    fitting_metrics: str  # those metrics, as an error names them
    classes: bool  # labels name classes: prepared as ids, none held out that train lacks, counted in a run's answers
    stratified: bool  # carved splits and folds keep each class's groups in proportion (splits.py)
    examples: Callable  # (table, columns, where) -> the flat examples, the label column read and checked
    label_names: Callable[[pa.Table, list[str] | None], list[str] | None]  # (train, declared) -> the classes
    encoded: Callable[[pa.Table, list[str] | None], pa.Table]  # a split with its labels as prepared
    counted: Callable[[np.ndarray, list[str] | None], dict]  # what task.json says of a split's prepared labels
    split: Callable  # (table, tokenizer, max_length, padded_to, where: the split as errors name it) -> the split as
    # the model reads it
    tokenizer_options: dict  # what the tokenizer is loaded with for it
    head: str  # the transformers Auto class a run fine-tunes
    head_config: Callable[[list[str] | None], dict]  # the arguments its config takes
    predicted: Callable  # a run's outputs (a tensor of logits) as its predictions, per row of the split
    answers: Callable[[list], np.ndarray]  # per-example predictions (or truth) as one flat answer per scored unit
    regrouped: Callable[[np.ndarray, pa.Table], list]  # flat answers as per-example predictions of `table`
    scores: Callable[[list[str], object, object, TaskFile], dict]  # (metrics, truth, predictions, task) -> scores
    resampled: Callable  # (metric, truth, runs, task) -> what the bootstrap draws rows of, and its score
    majority: Callable[[np.ndarray, list[str] | None], int | float] | None  # the majority baseline's answer to every
    # unit; None: the problem has none (its BASELINES leave `majority` out)
    linear_model: Callable[[float], object] | None  # TF-IDF's and the pooled linear probe's scikit-learn model at a
    # strength; None: the problem has neither
    probe: str  # how its linear probe reads a frozen model: "pooled" (an example's or word's features) or "span"
    # (every position's, span_probe.py): a key of probe.PROBES
    card_task: str  # the Hub's task type of the model card's results
    unit: str  # what an example is, as the report and the card count them
    probe_reads: str  # what the linear probe fits, as the report and the card say it
    threshold: Callable[[TaskFile, object, np.ndarray], float | None]  # (task, validation split, its outputs) -> what a
    # run fits on validation once trained and answers every held-out split with: a no-answer threshold, or None


def _class_ids(table: pa.Table, names: list[str]) -> pa.Table:
    """Class names as their ids (the index in `names`)."""
    ids = pc.index_in(table.column(LABEL), value_set=pa.array(names, pa.string())).cast(pa.int64())
    return table.set_column(table.column_names.index(LABEL), LABEL, ids)


def _tag_ids(table: pa.Table, names: list[str]) -> pa.Table:
    """Each sentence's tag names as their ids (the index in `names`), the lists kept."""
    tags = table.column(LABEL).combine_chunks()
    ids = pc.index_in(pc.list_flatten(tags), value_set=pa.array(names, pa.string())).cast(pa.int64())
    lists = pa.ListArray.from_arrays(tags.offsets, ids)
    return table.set_column(table.column_names.index(LABEL), LABEL, lists)


def _as_read(table: pa.Table, names: None) -> pa.Table:
    return table


def _class_examples(table: pa.Table, columns: dict, where) -> pa.Table:
    return examples(table, columns, class_labels, where)


def _number_examples(table: pa.Table, columns: dict, where) -> pa.Table:
    return examples(table, columns, number_labels, where)


def _declared_or_found(train: pa.Table, declared: list[str] | None) -> list[str]:
    """The classes: as the data declares them, else those of train, in numeric order if they are all integers."""
    if declared:
        return declared
    found = pc.unique(train.column(LABEL)).to_pylist()
    if all(value.lstrip("-").isdigit() for value in found):
        return sorted(found, key=int)
    return sorted(found)


def _no_names(train: pa.Table, declared: None) -> None:
    return None


def _declared_or_tagged(train: pa.Table, declared: list[str] | None) -> list[str]:
    """The tags: as the data declares them, else those of train (`O` first)."""
    return declared or tag_names([train])


def _class_counts(labels: np.ndarray, names: list[str]) -> dict:
    found = np.bincount(labels, minlength=len(names))  # one pass, whatever the number of classes
    return {"class_counts": {name: int(count) for name, count in zip(names, found, strict=True)}}


def _label_spread(labels: np.ndarray, names: None) -> dict:
    return {"label_mean": float(labels.mean()), "label_std": float(labels.std())}


def _tag_counts(labels: np.ndarray, names: list[str]) -> dict:
    """The words, and each tag's share of them."""
    words = _flat(list(labels))
    found = np.bincount(words, minlength=len(names))
    return {"words": len(words), "tag_counts": {name: int(count) for name, count in zip(names, found, strict=True)}}


def _text_split(table: pa.Table, tokenizer, max_length: int, padded_to: int, where: str):
    from .encoded import EncodedSplit

    return EncodedSplit(table, tokenizer, max_length, regression=False, padded_to=padded_to)


def _number_split(table: pa.Table, tokenizer, max_length: int, padded_to: int, where: str):
    from .encoded import EncodedSplit

    return EncodedSplit(table, tokenizer, max_length, regression=True, padded_to=padded_to)


def _word_split(table: pa.Table, tokenizer, max_length: int, padded_to: int, where: str):
    from .word_windows import WordWindows

    return WordWindows(table, tokenizer, max_length, padded_to)


def _class_head(names: list[str]) -> dict:
    return {
        "num_labels": len(names),
        "problem_type": "single_label_classification",
        "id2label": dict(enumerate(names)),
        "label2id": {name: index for index, name in enumerate(names)},
    }


def _number_head(names: None) -> dict:
    return {"num_labels": 1, "problem_type": "regression"}


def _tag_head(names: list[str]) -> dict:
    return {"num_labels": len(names), "id2label": dict(enumerate(names)),
            "label2id": {name: index for index, name in enumerate(names)}}  # fmt: skip


def _highest(logits):
    """The class of each example's (each position's) highest logit."""
    return logits.argmax(-1)


def _flattened(logits):
    """Each example's one output."""
    return logits.reshape(-1)


def _as_array(found) -> np.ndarray:
    return np.asarray(found)


def _flat(found: list) -> np.ndarray:
    """Every sentence's words' answers, one after the other."""
    return np.concatenate([np.asarray(each, dtype=np.int64) for each in found]) if len(found) else np.zeros(0, int)


def _same(flat: np.ndarray, table: pa.Table) -> np.ndarray:
    return flat


def _by_sentence(flat: np.ndarray, table: pa.Table) -> list[np.ndarray]:
    """Flat word answers cut into `table`'s sentences."""
    return np.split(flat, np.cumsum(pc.list_value_length(table.column(LABEL)).to_numpy())[:-1])


def _class_scores(metrics: list[str], truth, predicted, task: TaskFile) -> dict:
    return scores(metrics, np.asarray(truth), np.asarray(predicted), len(task.labels))


def _number_scores(metrics: list[str], truth, predicted, task: TaskFile) -> dict:
    return scores(metrics, np.asarray(truth), np.asarray(predicted), 0)


def _sentence_counts(truth, predicted, task: TaskFile) -> np.ndarray:
    return sentence_counts(truth, predicted, task.labels, task.tag_scheme)


def _tag_scores(metrics: list[str], truth, predicted, task: TaskFile) -> dict:
    return tag_scores(metrics, _sentence_counts(truth, predicted, task))


def _by_row(metric: str, truth, runs: dict, task: TaskFile):
    """The bootstrap draws the examples and scores each draw anew."""
    problem = PROBLEMS[task.problem]
    drawn = {name: [None if run is None else np.asarray(run) for run in found] for name, found in runs.items()}
    return np.asarray(truth), drawn, lambda rows, predicted: problem.scores([metric], rows, predicted, task)[metric]


def _by_sentence_counts(metric: str, truth, runs: dict, task: TaskFile):
    """The bootstrap draws each sentence's entity and word counts, and scores a draw from their sums: seqeval's entity
    F1 of the drawn sentences, without reading their entities again."""
    drawn = {name: [None if run is None else _sentence_counts(truth, run, task) for run in found]
             for name, found in runs.items()}  # fmt: skip
    return np.zeros(len(truth)), drawn, lambda rows, counts: tag_scores([metric], counts)[metric]


def _most_frequent(train: np.ndarray, names: list[str]) -> int:
    """The most frequent class (the first of the tied ones)."""
    return int(np.bincount(train, minlength=len(names)).argmax())


def _mean(train: np.ndarray, names: None) -> float:
    return float(train.mean())


def _logistic(strength: float):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=strength, max_iter=2000)


def _ridge(strength: float):
    """Ridge regression, its alpha the inverse of the strength (as logistic regression's C)."""
    from sklearn.linear_model import Ridge

    return Ridge(alpha=1.0 / strength)


SQUAD_COLUMNS = {TEXT: "question", PAIR: "context", LABEL: "answers", GROUP: "title"}  # the Hub's squad's names


def _squad_examples(table: pa.Table, columns: dict, where) -> pa.Table:
    """The flat question table (squad_examples.py) of a table laid out as the Hub's squad and squad_v2 (a Hub split, or
    a JSON Lines or Parquet file of such rows), its question, context, answers and title columns named by `columns`
    (the Hub's names where a column is not named; an `id` column always). Read as SQuAD v2.0, questions without an
    answer allowed: a v1.1 task refuses them by name once read (the task's squad_version, checked where the task is
    read, as a tag scheme is)."""
    named = {hub: columns.get(key) or hub for key, hub in SQUAD_COLUMNS.items()}
    found = {hub: table.column(name) for hub, name in {**named, "id": "id"}.items() if name in table.column_names}
    table = pa.table(found)  # a missing column is named by the Hub's name where squad_table refuses it
    return squad_table(table, where, allow_unanswerable=True)[0]


def _question_counts(answers: np.ndarray, names: None) -> dict:
    """The questions, and how many have no answer (SQuAD v2.0's unanswerable questions)."""
    return {"questions": len(answers), "unanswerable": int(sum(len(found) == 0 for found in answers))}


def _qa_split(table: pa.Table, tokenizer, max_length: int, padded_to: int, where: str):
    from .qa_windows import QAWindows

    return QAWindows(table, tokenizer, max_length, padded_to, where)


def _no_head_options(names: None) -> dict:
    return {}


def _stacked(logits):
    """A question-answering head's outputs as train.stacked gives them: its start and end logits stacked on a last
    axis, (windows, positions, 2), kept as they are (QAWindows reads them)."""
    if logits.ndim != 3 or logits.shape[-1] != 2:
        raise ValueError(f"expected start and end logits stacked as (windows, positions, 2), not {tuple(logits.shape)}")
    return logits


def _as_list(found: list) -> list:
    return list(found)


def _qa_counts(truth, predicted) -> np.ndarray:
    return question_counts(gold_texts(truth), [str(answer) for answer in predicted])


def _qa_scores(metrics: list[str], truth, predicted, task: TaskFile) -> dict:
    return qa_scores(metrics, _qa_counts(truth, predicted))


def _by_question_counts(metric: str, truth, runs: dict, task: TaskFile):
    """The bootstrap draws each question's exact match, F1 and count (squad_metrics.question_counts), and scores a
    draw from their sums, without comparing its answers again."""
    drawn = {name: [None if run is None else _qa_counts(truth, run) for run in found] for name, found in runs.items()}
    return np.zeros(len(truth)), drawn, lambda rows, counts: qa_scores([metric], counts)[metric]


def _no_threshold(task: TaskFile, split, outputs) -> None:
    return None


def _no_answer_threshold(task: TaskFile, split, outputs) -> float | None:
    """A task whose questions may have no answer (SQuAD v2.0): the threshold of the null score over the best span's
    that scores the split best on the task's main metric (QAWindows.fitted_threshold); None for SQuAD v1.1."""
    return split.fitted_threshold(outputs, task.main_metric) if task.allow_unanswerable else None


NUMBERS = " or ".join(NUMBER_METRICS)
# Words given apart are each a word of their own: a byte-level BPE tokenizer (RoBERTa's) marks them as it marks a word
# after a space, as run_ner.py loads it (without it, every word is cut as if glued to the one before); WordPiece
# tokenizers ignore the option.
WORDS_APART = {"add_prefix_space": True}
POOLED = "on its mean-pooled last hidden states"  # what the linear probe reads of a text
TEXTS = "text-classification"  # the Hub's task for labelling or scoring a text (classes or a value)
PROBLEMS = {
    "classification": Problem(
        default_metrics=("macro_f1", "accuracy"),
        metrics=tuple(CLASS_METRICS),
        fitting_metrics=f"a metric of classes ({', '.join(CLASS_METRICS)})",
        classes=True,
        stratified=True,
        examples=_class_examples,
        label_names=_declared_or_found,
        encoded=_class_ids,
        counted=_class_counts,
        split=_text_split,
        tokenizer_options={},
        head="AutoModelForSequenceClassification",
        head_config=_class_head,
        predicted=_highest,
        answers=_as_array,
        regrouped=_same,
        scores=_class_scores,
        resampled=_by_row,
        majority=_most_frequent,
        linear_model=_logistic,
        probe="pooled",
        card_task=TEXTS,
        unit="example",
        probe_reads=f"a logistic regression {POOLED}",
        threshold=_no_threshold,
    ),
    "regression": Problem(
        default_metrics=("pearson", "spearman"),
        metrics=tuple(NUMBER_METRICS),
        fitting_metrics=NUMBERS,
        classes=False,
        stratified=False,
        examples=_number_examples,
        label_names=_no_names,
        encoded=_as_read,
        counted=_label_spread,
        split=_number_split,
        tokenizer_options={},
        head="AutoModelForSequenceClassification",
        head_config=_number_head,
        predicted=_flattened,
        answers=_as_array,
        regrouped=_same,
        scores=_number_scores,
        resampled=_by_row,
        majority=_mean,
        linear_model=_ridge,
        probe="pooled",
        card_task=TEXTS,
        unit="example",
        probe_reads=f"a ridge regression {POOLED}",
        threshold=_no_threshold,
    ),
    "token_classification": Problem(
        default_metrics=TAG_METRICS,
        metrics=TAG_METRICS,
        fitting_metrics=f"a metric of tags ({', '.join(TAG_METRICS)})",
        classes=True,
        stratified=False,
        examples=tagged_examples,
        label_names=_declared_or_tagged,
        encoded=_tag_ids,
        counted=_tag_counts,
        split=_word_split,
        tokenizer_options=WORDS_APART,
        head="AutoModelForTokenClassification",
        head_config=_tag_head,
        predicted=_highest,
        answers=_flat,
        regrouped=_by_sentence,
        scores=_tag_scores,
        resampled=_by_sentence_counts,
        majority=_most_frequent,
        linear_model=_logistic,
        probe="pooled",
        card_task="token-classification",
        unit="sentence",
        probe_reads="a logistic regression on each word's first piece's last hidden state",
        threshold=_no_threshold,
    ),
    "extractive_qa": Problem(
        default_metrics=QA_METRICS,
        metrics=QA_METRICS,
        fitting_metrics=f"a metric of answers ({', '.join(QA_METRICS)})",
        classes=False,
        stratified=False,
        examples=_squad_examples,
        label_names=_no_names,
        encoded=_as_read,
        counted=_question_counts,
        split=_qa_split,
        tokenizer_options={},
        head="AutoModelForQuestionAnswering",
        head_config=_no_head_options,
        predicted=_stacked,
        answers=_as_list,
        regrouped=_same,
        scores=_qa_scores,
        resampled=_by_question_counts,
        majority=None,  # no answer is right for most questions: its BASELINES leave the majority out
        linear_model=None,  # no TF-IDF; its linear probe is the span probe's two regressions
        probe="span",
        card_task="question-answering",
        unit="question",
        probe_reads="two logistic regressions on each position's last hidden state, scoring it as an answer's start "
        "and end, read as a head's logits",
        threshold=_no_answer_threshold,
    ),
}
