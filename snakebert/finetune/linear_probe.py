"""The linear probe: the model frozen, each example's features the mean of its encoder's last hidden states over its
tokens (padding left out; a tagged word's, its first piece's last hidden state), and a logistic regression fitted on
train (ridge, for a number) on the standardised features, its strength chosen on validation as TF-IDF's is
(baselines.py). No learning rate and no gradient step on the model: it measures what the weights hold, and
representation-learning papers report it beside fine-tuning. One job per model writes every seed's result: random
initialisation draws its weights from each seed, while the pretrained and reference models are the same under every
seed, so their features are computed once. Features that are not finite (a model whose weights hold nan, or whose
activations overflow) are refused, never handed to the regression. A question-answering task's probe reads every
position instead (span_probe.py); the problems table names each problem's (`probe`, a key of PROBES)."""

import numpy as np
import torch
from transformers import AutoConfig, AutoModel, set_seed
from transformers.utils.logging import disable_progress_bar

from ..machine import machine
from ..named_loading import load_named
from .baselines import fitted_on_validation
from .encoded import EncodedSplit
from .frozen_states import STRENGTHS, finite, hidden_states
from .held_out_result import HeldOutResult
from .kinds import RANDOM_INIT
from .prepare import read_task_dir
from .probe_file import ProbeResult, write_probe
from .problems import PROBLEMS
from .span_probe import span_probe
from .task_file import TaskFile
from .train import load_tokenizer

PROTOCOL = "linear_probe"


def encoder(kind: str, source: str, seed: int, name: str):
    """The model without any head, in evaluation mode: as saved, or its architecture drawn from `seed`."""
    if kind == RANDOM_INIT:
        set_seed(seed)
        return AutoModel.from_config(AutoConfig.from_pretrained(source)).eval()
    return load_named(AutoModel.from_pretrained, source, f"finetune model {name!r}").eval()


def features(model, split: EncodedSplit, batch_size: int, device: str) -> np.ndarray:
    """Each example's features (the mean of its last hidden states over its tokens), or each word's (its first
    piece's last hidden state)."""
    found = [split.kept(hidden, mask, start) for start, hidden, mask in hidden_states(model, split, batch_size, device)]
    return split.unit_features(found)


def pooled_probe(
    task: TaskFile, tables: dict, splits: dict, model, batch_size: int, device: str, name: str, source: str
) -> HeldOutResult:
    """Each example's (or word's) features on every split, and the regression fitted on them (the strength chosen on
    validation)."""
    pooled = {
        split: finite(features(model, encoded, batch_size, device), split, name, source)
        for split, encoded in splits.items()
    }
    return fitted_on_validation(task, tables, pooled, STRENGTHS, standardised=True)


PROBES = {"pooled": pooled_probe, "span": span_probe}  # a problem's `probe`: how its probe reads a frozen model


def probe_model(task_dir: str, name: str, kind: str, source: str, max_length: int, batch_size: int, outs: list[str]):
    """Probe `source` (the model named `name`) on the prepared task, seed 1..len(outs), each result to its file."""
    disable_progress_bar()
    task, tables = read_task_dir(task_dir)
    problem = PROBLEMS[task.problem]
    tokenizer = load_tokenizer(source, name, problem.tokenizer_options)
    splits = {split: problem.split(table, tokenizer, max_length, batch_size, f"{split} split of {task_dir}")
              for split, table in tables.items()}  # fmt: skip
    device = "cuda" if torch.cuda.is_available() else "cpu"
    found = None
    for seed, out in enumerate(outs, 1):
        if found is None or kind == RANDOM_INIT:
            model = encoder(kind, source, seed, name).to(device)
            found = PROBES[problem.probe](task, tables, splits, model, batch_size, device, name, source)
        result = ProbeResult(
            task=task.task,
            model=name,
            kind=kind,
            source=source,
            seed=seed,
            fold=task.fold,
            protocol=PROTOCOL,
            validation=found.validation,
            test=found.test,
            predictions=found.predictions,
            strength=found.strength,
            no_answer_threshold=found.no_answer_threshold,
            machine=machine(device),
        )
        write_probe(out, result)
    return found
