"""The linear probe of extractive question answering: the model frozen, each window position's last hidden state its
features, and two logistic regressions on the standardised features, one scoring a position as an answer's start and
one as its end (a question-answering head is the same two linear maps, trained through the model). Their decision
values are the start and end logits that run_qa.py's post-processing turns into answers (qa_postprocess.py), as a
fine-tuned head's are, with a v2.0 task's no-answer threshold chosen on validation as a run's is.

Train gives, per window, its labelled start and end positions, its first position ([CLS], where a window without the
answer points) and NEGATIVES other context positions, drawn from the window's index alone (the same for every model
and seed), so that memory grows with the windows, not with their positions. The held-out splits are scored at every
position, batch by batch, for every strength at once; the strength is the one whose validation score on the task's
main metric is best (the first, on ties), as the pooled probe's (probe.py, which runs both)."""

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from .frozen_states import STRENGTHS, finite, hidden_states
from .held_out_result import HeldOutResult
from .qa_windows import QAWindows
from .task_file import TaskFile
from .train import as_json, predicted, split_scores, with_threshold

NEGATIVES = 8  # context positions per train window that are neither its start nor its end
DRAW = 20_261_205  # with a window's index, what its negatives are drawn from


def train_positions(split: QAWindows) -> list[np.ndarray]:
    """Per window of `split` (its `count` real ones), the positions whose features train the probe: its first
    position, its labelled start and end, and up to NEGATIVES other context positions."""
    found = []
    for window in range(split.count):
        start, end = split.labels[window].tolist()
        context = [position for position, span in enumerate(split.offsets[window]) if span is not None]
        others = np.setdiff1d(context, [start, end])
        drawn = np.random.default_rng([DRAW, window]).permutation(others)[:NEGATIVES]
        found.append(np.unique(np.concatenate([[0, start, end], drawn]).astype(np.int64)))
    return found


def train_rows(split: QAWindows, model, batch_size: int, device: str, name: str, source: str):
    """The train features (a row per chosen position) and whether each position is its window's start and end."""
    positions, rows = train_positions(split), []
    for first, hidden, _ in hidden_states(model, split, batch_size, device):
        found = hidden.float().cpu().numpy()
        for window in range(first, min(first + len(found), split.count)):
            rows.append(found[window - first, positions[window]])
    features = finite(np.concatenate(rows), "train", name, source)
    labels = split.labels[: split.count].numpy()
    is_start = np.concatenate([chosen == label for chosen, label in zip(positions, labels[:, 0], strict=True)])
    is_end = np.concatenate([chosen == label for chosen, label in zip(positions, labels[:, 1], strict=True)])
    return features, is_start, is_end


def fitted(features: np.ndarray, is_start: np.ndarray, is_end: np.ndarray) -> tuple[StandardScaler, list[tuple]]:
    """The standardisation of the train features, fitted once, and per strength the start and the end regressions on
    the standardised features."""
    scaler = StandardScaler().fit(features)
    scaled = scaler.transform(features)

    def regression(strength: float, labels: np.ndarray) -> LogisticRegression:
        return LogisticRegression(C=strength, max_iter=2000).fit(scaled, labels)

    return scaler, [(regression(each, is_start), regression(each, is_end)) for each in STRENGTHS]


def held_out_logits(split: QAWindows, fit: tuple, model, batch_size: int, device: str, what: tuple) -> list:
    """Per strength, the start and end logits of every window and position of `split`, stacked (windows, positions,
    2), as a question-answering head gives them; `fit`: fitted's scaler and regressions. `what`: the split's and the
    model's names, as errors say them."""
    scaler, models = fit
    found = [[] for _ in models]
    for _, hidden, _ in hidden_states(model, split, batch_size, device):
        states = finite(hidden.float().cpu().numpy(), *what)
        flat = scaler.transform(states.reshape(-1, states.shape[-1]))
        for kept, (start, end) in zip(found, models, strict=True):
            logits = np.stack([start.decision_function(flat), end.decision_function(flat)], axis=-1)
            kept.append(logits.reshape(*states.shape[:2], 2))
    return [np.concatenate(each)[: split.count] for each in found]


def span_probe(
    task: TaskFile, tables: dict, splits: dict, model, batch_size: int, device: str, name: str, source: str
) -> HeldOutResult:
    """The two regressions fitted on train at each strength, the one that scores validation best kept: its scores on
    every held-out split, its answers on the reported one, its strength and, for SQuAD v2.0, its no-answer
    threshold."""
    fit = fitted(*train_rows(splits["train"], model, batch_size, device, name, source))
    held_out = [split for split in splits if split != "train"]
    logits = {split: held_out_logits(splits[split], fit, model, batch_size, device, (split, name, source))
              for split in held_out}  # fmt: skip
    best = None
    for index, strength in enumerate(STRENGTHS):
        threshold = with_threshold(task, splits, logits["validation"][index])
        answers = {split: predicted(task, splits[split], logits[split][index]) for split in held_out}
        found = {split: split_scores(task, splits[split], answers[split]) for split in held_out}
        main = found["validation"][task.main_metric]
        if best is None or main > best[0]:
            kept = HeldOutResult(
                validation=found["validation"],
                test=found.get("test"),
                predictions=as_json(answers[task.reported_split]),
                strength=strength,
                no_answer_threshold=threshold if task.allow_unanswerable else None,
            )
            best = (main, kept)
    return best[1]
