"""The baselines that need no BERT, fitted on train and scored like the fine-tuned models, per problem. For a text:
the majority class (the mean, for a number), and TF-IDF features with logistic regression (ridge, for a number) from
scikit-learn, its regularisation chosen on validation; a sentence pair is the two texts' features side by side. For
tagged words: the majority tag for every word (`O` on any entity task), and each word's most frequent tag in train
(`word_tags`, the classic lexical baseline of named-entity recognition), the majority tag for a word train never has.
TF-IDF does not apply to a tag per word. For extractive question answering: each question answered by its context's
sentence that shares the most words with it (`squad_sentence`, squad_baseline.py), which fits nothing on train; QA has
no majority baseline (no one answer fits most questions), nor TF-IDF."""

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from .baselines_file import BaselineResult, write_baselines
from .examples import LABEL, PAIR, TEXT
from .held_out_result import HeldOutResult
from .prepare import read_task_dir
from .problems import PROBLEMS
from .squad_baseline import sentence_answers
from .task_file import TaskFile

STRENGTHS = (0.1, 1.0, 10.0, 100.0)  # logistic regression's C; ridge's alpha is its inverse


def _texts(table: pa.Table) -> list[list[str]]:
    return [table.column(name).to_pylist() for name in (TEXT, PAIR) if name in table.column_names]


def _features(vectorizer: TfidfVectorizer, table: pa.Table):
    return hstack([vectorizer.transform(texts) for texts in _texts(table)]).tocsr()


def _answers(table: pa.Table, task: TaskFile) -> np.ndarray:
    """A split's labels, one per scored unit (an example, or a word)."""
    return PROBLEMS[task.problem].answers(table.column(LABEL).to_pylist())


def majority(splits: dict[str, pa.Table], task: TaskFile) -> HeldOutResult:
    """The most frequent train class or tag (the first of the tied ones), or the train mean, for every example or
    word."""
    problem = PROBLEMS[task.problem]
    constant = problem.majority(_answers(splits["train"], task), task.labels)
    predicted = {
        split: problem.regrouped(np.full(len(_answers(table, task)), constant), table)
        for split, table in _held_out(splits)
    }
    return _with_predictions(task, splits, predicted)


def word_tags(splits: dict[str, pa.Table], task: TaskFile) -> HeldOutResult:
    """Each word's most frequent tag in train (the first of the tied ones, in tag order), the majority tag for a word
    that train never has; words matched as written."""
    train = splits["train"]
    words, tags = pc.list_flatten(train.column(TEXT)).to_numpy(zero_copy_only=False), _answers(train, task)
    vocabulary, word_ids = np.unique(words, return_inverse=True)
    counts = np.zeros((len(vocabulary), len(task.labels)), dtype=np.int64)
    np.add.at(counts, (word_ids, tags), 1)
    best, unseen = counts.argmax(axis=1), PROBLEMS[task.problem].majority(tags, task.labels)
    predicted = {}
    for split, table in _held_out(splits):
        found = pc.list_flatten(table.column(TEXT)).to_numpy(zero_copy_only=False)
        at = np.minimum(np.searchsorted(vocabulary, found), len(vocabulary) - 1)
        known = vocabulary[at] == found
        predicted[split] = PROBLEMS[task.problem].regrouped(np.where(known, best[at], unseen), table)
    return _with_predictions(task, splits, predicted)


def squad_sentence(splits: dict[str, pa.Table], task: TaskFile) -> HeldOutResult:
    """Each question's context sentence that shares the most words with it, whole; no answer ("") where none shares a
    word in a task that allows unanswerable questions (SQuAD v2.0)."""
    predicted = {split: sentence_answers(table, task.allow_unanswerable) for split, table in _held_out(splits)}
    return _with_predictions(task, splits, predicted)


def _held_out(splits: dict[str, pa.Table]) -> list[tuple[str, pa.Table]]:
    return [(split, table) for split, table in splits.items() if split != "train"]


def _with_predictions(task: TaskFile, splits: dict[str, pa.Table], predicted: dict[str, np.ndarray]) -> HeldOutResult:
    """The scores on each held-out split, and the predictions on the reported one (what the summary resamples)."""
    found = {split: _scored(task, splits[split], values) for split, values in predicted.items()}
    reported = [np.asarray(each).tolist() for each in predicted[task.reported_split]]
    return HeldOutResult(validation=found["validation"], test=found.get("test"), predictions=reported)


def _scored(task: TaskFile, table: pa.Table, predicted) -> dict:
    return PROBLEMS[task.problem].scores(task.metrics, table.column(LABEL).to_pylist(), predicted, task)


def _model(task: TaskFile, strength: float, standardised: bool):
    model = PROBLEMS[task.problem].linear_model(strength)
    return make_pipeline(StandardScaler(), model) if standardised else model


def fitted_on_validation(
    task: TaskFile, splits: dict[str, pa.Table], features: dict, strengths=STRENGTHS, standardised: bool = False
) -> HeldOutResult:
    """Logistic regression (ridge, for a number) on train's `features` at each of `strengths`, the one whose validation
    score on the task's main metric is best (the first, on ties) scored on every held-out split; the features
    standardised on train first if asked."""
    labels, regrouped = _answers(splits["train"], task), PROBLEMS[task.problem].regrouped
    best = None
    for strength in strengths:
        model = _model(task, strength, standardised).fit(features["train"], labels)
        predicted = {split: regrouped(model.predict(features[split]), table) for split, table in _held_out(splits)}
        found = _with_predictions(task, splits, predicted)
        main = found.validation[task.main_metric]
        if best is None or (main is not None and (best[0] is None or main > best[0])):
            best = (main, replace(found, strength=strength))
    return best[1]


def tfidf(splits: dict[str, pa.Table], task: TaskFile) -> HeldOutResult:
    """TF-IDF (words and word pairs, sublinear counts) with the regularisation strength chosen on validation."""
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, max_features=200_000)
    vectorizer.fit([text for texts in _texts(splits["train"]) for text in texts])
    return fitted_on_validation(task, splits, {split: _features(vectorizer, table) for split, table in splits.items()})


TEXT_BASELINES = {"majority": majority, "tfidf": tfidf}
BASELINES = {  # per problem (tests/unit/test_tables.py holds the keys to PROBLEMS')
    "classification": TEXT_BASELINES,
    "regression": TEXT_BASELINES,
    "token_classification": {"majority": majority, "word_tags": word_tags},
    "extractive_qa": {"squad_sentence": squad_sentence},
}


def _result(found: HeldOutResult, task: TaskFile) -> BaselineResult:
    return BaselineResult(
        validation=found.validation,
        test=found.test,
        predictions=found.predictions,
        strength=found.strength,
        fold=task.fold,
    )


def run_baselines(task_dir: str, out: str) -> dict[str, BaselineResult]:
    """Every baseline of the task's problem on the prepared task in `task_dir`, written to `out`."""
    task, splits = read_task_dir(task_dir)
    found = {name: _result(baseline(splits, task), task) for name, baseline in BASELINES[task.problem].items()}
    write_baselines(out, found)
    return found
