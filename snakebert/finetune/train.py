"""One fine-tuning run: a sequence classifier (or regressor, word tagger or question answerer: problems.py) from the
job's starting point, trained on the task's train split through the backend table's trainer (Trainer on CPU and CUDA,
GaudiTrainer on one HPU), evaluated each epoch on validation, the best epoch kept and scored on validation and test;
a run that diverged records why instead of scores (divergence.py). Checkpoints live outside the rule's outputs, one
folder per fingerprint of what shapes the result, made at the first save, so a killed run resumes; the folder is
removed once the result is written (run_folder.py)."""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import AutoConfig, AutoTokenizer, set_seed
from transformers.utils.logging import disable_progress_bar

from ..errors import DataError
from ..files.atomic import naming_a_full_disk
from ..files.checksum import files_digest
from ..machine import machine
from ..model_folders import tokenizer_problem, usable_positions
from ..named_loading import load_named
from ..tokenizer_files import ids_problem
from ..tracking.trackers import tracking_callbacks
from ..training.backends import BACKENDS, TrainerOptions
from ..training.checkpoints import fingerprint, resume_point
from ..training.divergence import StopWhenDiverged
from ..training.trainers import EpochOrder, SealedCheckpoints
from .divergence import LOSS_KEYS, loss_divergence, output_divergence
from .encoded import EncodedSplit
from .job import FinetuneJob
from .kinds import RANDOM_INIT
from .plan import learning_rates
from .prepare import read_task_dir
from .problems import PROBLEMS
from .run_file import RunResult, write_run
from .run_folder import FolderAtFirstSave, made, remove_emptied, remove_finished
from .task_file import TaskFile

UNDEFINED_SCORE = -1.0  # an undefined correlation, while the best epoch is chosen: the worst a correlation can be


def load_tokenizer(model: str, name: str, options: dict | None = None):
    """The tokenizer of `model` (a folder or a Hub id), the model named `name` in the results, with the problem's
    `options` (problems.py), refused where it is not the model's own (a Hub id's is checked here, a folder's also when
    the workflow is read: model_folders.py) or has no fast form."""
    what = f"finetune model {name!r}"
    problem = tokenizer_problem(model, what)
    if problem:
        raise DataError(problem)
    tokenizer = load_named(lambda found: AutoTokenizer.from_pretrained(found, **(options or {})), model, what)
    if not tokenizer.is_fast:
        raise DataError(
            f"finetune model {name!r} ({model}): its tokenizer ({type(tokenizer).__name__}) has no fast form "
            "(tokenizer.json), which fine-tuning reads every task through (word tagging and question answering need "
            "its word ids and character offsets), as pretraining's model.init_from does"
        )
    missing = [role for role in ("cls_token", "mask_token") if getattr(tokenizer, f"{role}_id", None) is None]
    if missing:
        raise DataError(
            f"finetune model {name!r} ({model}): its tokenizer has no {' or '.join(missing)}, so it is not "
            "a BERT-style model that fine-tunes as this one does"
        )
    fit = ids_problem(len(tokenizer), load_named(AutoConfig.from_pretrained, model, what).vocab_size)
    if fit:
        raise DataError(f"{what} ({model}): its tokenizer {fit}: it is not the model's own (a tokenizer of a few "
                        "tokens would make every word unknown); save the model's tokenizer with it")  # fmt: skip
    return tokenizer


def load_model(job: FinetuneJob, task: TaskFile):
    """The starting point with its problem's head, drawn from the job's seed."""
    problem = PROBLEMS[task.problem]
    head, shape = getattr(transformers, problem.head), problem.head_config(task.labels)
    set_seed(job.seed)
    if job.kind == RANDOM_INIT:
        return head.from_config(AutoConfig.from_pretrained(job.source, **shape))
    return load_named(lambda name: head.from_pretrained(name, **shape), job.source, f"finetune model {job.name!r}")


def stacked(outputs) -> np.ndarray:
    """A split's outputs as the trainer gives them, as one array of a row per example or window: a question-answering
    head's pair of start and end logits stacked on a last axis, (windows, positions, 2)."""
    return np.stack(outputs, axis=-1) if isinstance(outputs, tuple) else np.asarray(outputs)


def predicted(task: TaskFile, split, logits) -> list | np.ndarray:
    """The run's predictions of each example of `split` (of each word, for a task that tags words; an answer, for a
    question)."""
    return split.example_outputs(PROBLEMS[task.problem].predicted(torch.as_tensor(stacked(logits))).numpy())


def with_threshold(task: TaskFile, splits: dict, outputs) -> float | None:
    """The threshold the task's problem fits on validation's `outputs` (a no-answer threshold, for a question-answering
    task whose questions may have none; else None), set on every held-out split."""
    threshold = PROBLEMS[task.problem].threshold(task, splits["validation"], stacked(outputs))
    if threshold is not None:
        for split, encoded in splits.items():
            if split != "train":
                encoded.threshold = threshold
    return threshold


def split_scores(task: TaskFile, split, found) -> dict:
    """The scores of a split's predictions `found`."""
    return PROBLEMS[task.problem].scores(task.metrics, split.truth, found, task)


def classes_predicted(task: TaskFile, found) -> int | None:
    """How many classes the predictions `found` hold (1: the run answers one class to everything); None without
    classes."""
    problem = PROBLEMS[task.problem]
    if not problem.classes:
        return None
    return len(np.unique(problem.answers(found)))


def as_json(found) -> list:
    """Predictions, example by example, as JSON holds them (what the summary's bootstrap resamples)."""
    return [np.asarray(each).tolist() for each in found] if isinstance(found, list) else found.tolist()


def checked_rate(job: FinetuneJob) -> float:
    """The run's learning rate, which a run of the search takes from the recipe's grid."""
    grid = learning_rates(job.recipe)
    if job.searching and job.rate not in grid:
        raise DataError(f"finetune run at the learning rate {job.rate:g}: not a rate of the recipe's grid {grid}")
    return job.rate


def model_digest(job: FinetuneJob) -> str:
    """What the starting point is: its folder's weights and config, or the Hub id as named."""
    folder = Path(job.source)
    return files_digest(sorted(path for path in folder.glob("*") if path.suffix in (".safetensors", ".bin", ".json")))


def fingerprint_inputs(job: FinetuneJob, task: TaskFile) -> dict:
    return {
        "task": {split: counts["sha256"] for split, counts in task.splits.items()},
        "metrics": task.metrics,
        "kind": job.kind,
        "model": job.source,
        "weights": model_digest(job) if Path(job.source).is_dir() else None,
        "seed": job.seed,
        "recipe": job.recipe,
        "backend": job.backend,
        "gaudi_config": json.loads(Path(job.gaudi_config).read_text()) if job.backend == "hpu" else None,
    }


def steps_per_epoch(job: FinetuneJob, task: TaskFile, train_size: int) -> int:
    steps = train_size // job.recipe["batch_size"]
    if steps == 0:
        raise DataError(
            f"finetune task {task.task!r}: train holds {train_size} examples, fewer than one batch of "
            f"{job.recipe['batch_size']} (set the task's recipe.batch_size lower)"
        )
    return steps


def training_arguments(job: FinetuneJob, task: TaskFile, folder: Path, train_size: int) -> dict:
    recipe = job.recipe
    return {
        "output_dir": str(folder),
        "num_train_epochs": recipe["epochs"],
        "per_device_train_batch_size": recipe["batch_size"],
        "per_device_eval_batch_size": job.eval_batch_size,
        "learning_rate": recipe["learning_rate"],
        "warmup_steps": math.ceil(recipe["warmup_ratio"] * steps_per_epoch(job, task, train_size) * recipe["epochs"]),
        "weight_decay": recipe["weight_decay"],
        "lr_scheduler_type": "linear",
        "eval_strategy": "epoch",
        "save_strategy": "epoch",
        "logging_strategy": "epoch",
        "logging_nan_inf_filter": False,  # a step's nan or inf reaches the epoch's logged loss (divergence.py)
        "save_total_limit": 1,
        "load_best_model_at_end": True,
        "metric_for_best_model": task.main_metric,
        "greater_is_better": True,
        "seed": job.seed,
        "data_seed": job.seed,
        "dataloader_drop_last": True,
        "dataloader_num_workers": 0,
        "remove_unused_columns": False,
        "report_to": [],
        "disable_tqdm": True,
    }


def build_trainer(
    job: FinetuneJob, task: TaskFile, model, splits: dict[str, EncodedSplit], folder: Path, inputs: dict | None = None
):
    """The run's trainer, its checkpoints in `folder` (made at the first save, with the fingerprint of `inputs`)."""
    arguments = training_arguments(job, task, folder, len(splits["train"]))
    base, args, extra = BACKENDS[job.backend].trainer(arguments, TrainerOptions(job.gaudi_config, job.on_device))
    mixins = (FolderAtFirstSave, EpochOrder, SealedCheckpoints, base)
    trainer_class = type(f"Task{base.__name__}", mixins, {"fingerprint_inputs": inputs})

    def compute_metrics(prediction) -> dict:
        with_threshold(task, splits, prediction.predictions)
        validation = splits["validation"]
        found = split_scores(task, validation, predicted(task, validation, prediction.predictions))
        return {name: UNDEFINED_SCORE if value is None else value for name, value in found.items()}

    return trainer_class(
        model=model,
        args=args,
        train_dataset=splits["train"],
        eval_dataset=splits["validation"],
        compute_metrics=compute_metrics,
        callbacks=[StopWhenDiverged(LOSS_KEYS)],
        **extra,
    )


def best_epoch(trainer, steps_per_epoch: int) -> float:
    return int(trainer.state.best_model_checkpoint.rsplit("-", 1)[1]) / steps_per_epoch


def finetune(job: FinetuneJob, out: str) -> RunResult:
    """Fine-tune, keep the best epoch on validation, score it; write the result to `out`."""
    disable_progress_bar()
    if job.threads:
        torch.set_num_threads(job.threads)
    task, tables = read_task_dir(job.task_dir)
    job = dataclasses.replace(job, recipe={**job.recipe, "learning_rate": checked_rate(job)})
    tokenizer = load_tokenizer(job.source, job.name, PROBLEMS[task.problem].tokenizer_options)
    length, problem = job.recipe["max_length"], PROBLEMS[task.problem]
    splits = {}
    for split, table in tables.items():
        where = f"finetune task {task.task!r}, {split} split of {job.task_dir}"
        splits[split] = problem.split(table, tokenizer, length, 1 if split == "train" else job.eval_batch_size, where)
    model = load_model(job, task)
    positions = usable_positions(model.config.to_dict())
    if length > positions:
        raise DataError(
            f"finetune model {job.name!r} ({job.source}): its inputs hold at most {positions} positions, fewer than "
            f"the recipe max_length {length} of task {task.task!r}; lower the task's max_length"
        )
    inputs = fingerprint_inputs(job, task)
    own = Path(job.checkpoints)
    folder = own / fingerprint(inputs)
    with naming_a_full_disk(job.checkpoints, "run's checkpoints"):
        try:
            resume = resume_point(job.checkpoints, inputs, print)
            result = train_and_score(job, task, splits, model, folder, resume, inputs)
        except BaseException:
            remove_emptied(folder, own)  # a run that failed before its first checkpoint leaves no folder
            raise
    write_run(out, result)
    remove_finished(folder, own)
    if result.diverged:
        print(
            f"finetune run of {job.name!r}, seed {job.seed}, diverged at the learning rate "
            f"{job.recipe['learning_rate']:g}: {result.diverged}; its scores are left out of the rate search and "
            "the summary (lower the rates, should every rate diverge)"
        )
    return result


def held_out_logits(trainer, splits: dict[str, EncodedSplit]) -> dict:
    """The run's outputs on each held-out split, without the padding of the last evaluation batch."""
    return {
        split: stacked(trainer.predict(encoded).predictions)[: encoded.count]
        for split, encoded in splits.items()
        if split != "train"
    }


def scored(task: TaskFile, splits: dict[str, EncodedSplit], logits: dict, best: float) -> dict:
    """A run's results (RunResult's fields): its best epoch, its scores and classes predicted on each held-out split,
    its predictions on the reported split, and what it fitted on validation (a no-answer threshold) where its problem
    fits one."""
    threshold = with_threshold(task, splits, logits["validation"])
    found = {split: predicted(task, splits[split], outputs) for split, outputs in logits.items()}
    return dict(
        best_epoch=best,
        **{split: split_scores(task, splits[split], answers) for split, answers in found.items()},
        classes_predicted={split: classes_predicted(task, answers) for split, answers in found.items()},
        predictions=as_json(found[task.reported_split]),
        no_answer_threshold=threshold if task.allow_unanswerable else None,
        diverged=None,
    )


def diverged_result(task: TaskFile, splits: dict[str, EncodedSplit], diverged: str) -> dict:
    """A diverged run's results (RunResult's fields): why it diverged, and no best epoch, score, class count or
    prediction."""
    held_out = [split for split in splits if split != "train"]
    return dict(
        best_epoch=None,
        **{split: dict.fromkeys(task.metrics) for split in held_out},
        classes_predicted=dict.fromkeys(held_out),
        predictions=None,
        diverged=diverged,
    )


def train_and_score(
    job: FinetuneJob, task: TaskFile, splits: dict[str, EncodedSplit], model, folder: Path, resume, inputs: dict
) -> RunResult:
    """Train in `folder` (from the checkpoint `resume`, if any; `inputs`: its fingerprint's), keep the best epoch on
    validation and score it, or, if the run diverged, say why instead."""
    made(folder)  # the trainer makes it, and another run may be removing the empty folders above it: made here first
    trainer = build_trainer(job, task, model, splits, folder, inputs)
    remove_emptied(folder, Path(job.checkpoints))  # no checkpoint yet: the first save makes the folder again
    hyperparameters = {"task": task.task, "recipe": job.recipe}
    for callback in tracking_callbacks(job.trackers, job.tracking_dir, folder.name, hyperparameters, job.tracking):
        trainer.add_callback(callback)
    trainer.train(resume_from_checkpoint=resume)
    diverged = loss_divergence(trainer.state.log_history)
    logits = {} if diverged else held_out_logits(trainer, splits)
    diverged = diverged or output_divergence(logits)
    best = None if diverged else best_epoch(trainer, steps_per_epoch(job, task, len(splits["train"])))
    return RunResult(
        task=task.task,
        model=job.name,
        kind=job.kind,
        source=job.source,
        seed=job.seed,
        fold=task.fold,
        recipe=job.recipe,
        search=job.searching,
        **(diverged_result(task, splits, diverged) if diverged else scored(task, splits, logits, best)),
        machine=machine(job.backend),
    )
