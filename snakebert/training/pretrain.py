"""Pretrain BERT with masked language modelling on the manifest's blocks, phase by phase: check the data before
the first step, resume from a matching checkpoint, log one progress line per logging step."""

import dataclasses
import hashlib
import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoTokenizer, PretrainedConfig, TrainerState, set_seed
from transformers.trainer import TRAINER_STATE_NAME
from transformers.utils.logging import disable_progress_bar

from ..config_defaults import schema_defaults
from ..data.manifest import data_digest, read_manifest
from ..data.manifest_view import Manifest
from ..errors import DataError
from ..files.atomic import atomic_path, naming_a_full_disk
from ..model_folders import usable_positions
from ..tracking.trackers import tracking_callbacks
from .backends import backend_problems, rank, world_size
from .base_model import INIT_FROM, base_digest, job_model
from .block_dataset import BlockDataset, split_indices
from .checkpoints import Segment, checkpoint_step, discard_unused, resume_point, run_directory, step_ranges
from .collator import BlockCollator
from .divergence import StopWhenDiverged, diverged
from .finished_run import finished_line, keep_finished, kept_finished, save_finished
from .job import TrainingJob
from .log_history import write_log_history
from .masking import predictions_per_block
from .model import masked_positions_model, model_config, save_masked_lm
from .phases import Phase, plan_phases
from .preflight import check_block_splits, check_counts, check_positions, check_vocabulary, verify_blocks
from .stop_request import Deadline, StopOnRequest, StopRequest, job_end_time, report_stop, stopped
from .trainers import build_trainer, global_batch_size
from .training_metrics import PhaseRecord, TrainingMetrics, write_training_metrics

HISTORY = "runs"  # the model folder's copy of the run's history, which the Hub shows as its Training metrics tab

# The `pretrain` settings that cannot change the trained weights; every other setting is in the fingerprint, so
# a new setting shapes it unless it is named here (tests/unit/test_fingerprint.py classifies every schema key).
NEUTRAL_SETTINGS = frozenset(
    {
        "backend",  # the resolved backend is fingerprinted instead
        "logging_steps",
        "save_steps",
        "save_total_limit",
        "stop_before_deadline",
        "eval_steps",
        "eval_blocks",
        "per_device_eval_batch_size",
        "dataloader_num_workers",
        "throughput_warmup_steps",
    }
)


def fingerprint_inputs(
    manifest: Manifest,
    model: PretrainedConfig,
    settings: dict,
    processes: int,
    backend: str,
    gaudi_config: str,
    base: str | None = None,
) -> dict:
    """Everything that can change what training produces: the data, the model and the base it starts from (by the
    digest of a base folder's files), every setting but the neutral ones, the world size, the backend and the Gaudi
    config."""
    return {
        "data": data_digest(manifest),
        "model": model.to_diff_dict(),
        "base": base_digest(base) if base else None,
        "training": {key: value for key, value in settings.items() if key not in NEUTRAL_SETTINGS},
        "world_size": processes,
        "backend": backend,
        "gaudi_config": json.loads(Path(gaudi_config).read_text()),
    }


def preflight(manifest_path: str, manifest: Manifest, vocab_size: int, phases: list[Phase], ranks: int, backend: str):
    """Fail before the first step, and before any block is read: vocabulary, the manifest's counts, splits (each
    phase's packing against its global batch), and this process's share of the block files of every packing the
    phases read. `manifest`: as read from `manifest_path`, which the errors name and the block paths are relative
    to."""
    started = time.monotonic()
    check_vocabulary(manifest_path, manifest, vocab_size)
    check_counts(manifest_path, manifest)
    for phase in phases:
        train_blocks = len(split_indices(manifest, "train", phase.block_size))
        batch = phase.per_device_train_batch_size * ranks
        check_block_splits(manifest_path, manifest, train_blocks, manifest.split.validation_blocks, batch)
    sizes = sorted({phase.block_size for phase in phases})
    checked = verify_blocks(manifest_path, manifest, vocab_size, rank(backend), world_size(backend), sizes)
    print(
        f"verified {checked:,} bytes of blocks against the manifest's SHA-256 and the vocabulary "
        f"in {time.monotonic() - started:.1f} s"
    )


def check_world_size(backend: str, planned: int | None) -> int:
    """The ranks the launcher started, which must be the ranks the workflow planned (devices x nodes)."""
    processes = world_size(backend)
    if planned is not None and processes != planned:
        raise DataError(
            f"the {backend} launcher started {processes} ranks, the workflow planned {planned} (devices per node x "
            "nodes): the launcher, the profile and the allocation disagree"
        )
    return processes


def first_batch_blocks(trainer, train: BlockDataset) -> list[int]:
    """The train blocks this rank reads in the first batch of the first epoch, as the trainer shards batches
    between ranks (each rank's batches are disjoint, and together they are the global batch)."""
    batch = next(iter(trainer.get_train_dataloader().batch_sampler))
    return [int(train.indices[index]) for _, index in batch]


def weights_digest(model) -> str:
    """SHA-256 of the model's parameters and buffers in name order: equal on every rank of a data-parallel run."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


@dataclass
class Run:
    """What every phase of a run trains with, checked before the first step."""

    job: TrainingJob
    settings: dict  # the job's, with the data set's shuffle seed
    manifest: Manifest  # the job's manifest file, read once
    phases: list[Phase]
    tokenizer: object
    config: PretrainedConfig
    validation: BlockDataset
    eval_collator: BlockCollator
    folder: Path  # the fingerprint's checkpoint folder
    inputs: dict  # what the fingerprint is made of
    place: str  # "rank r of n"


def prepare_run(job: TrainingJob) -> Run:
    """Check the data, the phases, the launch and the checkpoints before the first step; the manifest is read here,
    once, for the pre-flight, the fingerprint and every phase's blocks."""
    settings, backend = job.pretrain, job.backend
    disable_progress_bar()  # the log holds one line per logging step (progress.py), not progress bars
    if job.threads:
        torch.set_num_threads(job.threads)
    processes = check_world_size(backend, job.world_size)
    job = dataclasses.replace(job, model=job_model({**schema_defaults("model"), **job.model}))
    for problem in backend_problems(job.model, backend):
        raise DataError(problem)
    if backend == "cpu" and torch.cuda.is_available():
        print(
            "training on the CPU although a GPU is visible: give pretrain GPUs (profiles/local-gpu, or "
            "--set-resources pretrain:gpu=N) or set pretrain.backend: cuda"
        )
    tokenizer = AutoTokenizer.from_pretrained(job.tokenizer)
    manifest = read_manifest(job.manifest)
    phases = plan_phases(settings, manifest.block_size)
    preflight(job.manifest, manifest, len(tokenizer), phases, processes, backend)
    validation = BlockDataset(manifest, Path(job.manifest).parent, "validation", limit=settings["eval_blocks"])
    config = model_config(job.model, tokenizer)
    where = f"model.init_from {job.model[INIT_FROM]!r}" if job.model[INIT_FROM] else "the model"
    check_positions([phase.block_size for phase in phases], usable_positions(config.to_dict()), where)
    settings = {**settings, "shuffle_seed": manifest.shuffle_seed}
    inputs = fingerprint_inputs(manifest, config, settings, processes, backend, job.gaudi_config, job.model[INIT_FROM])
    if len(validation) < settings["per_device_eval_batch_size"]:
        print(
            f"evaluating in batches of {len(validation)}: only {len(validation)} validation blocks (last batches drop)"
        )
        settings["per_device_eval_batch_size"] = max(len(validation), 1)
    masking = job.evaluate
    k = predictions_per_block(validation.block_size, masking["mlm_probability"], masking["max_predictions"])
    eval_collator = BlockCollator(tokenizer, k, settings["seed"])
    folder = run_directory(job.checkpoints, inputs)
    place = f"rank {rank(backend)} of {processes}"
    return Run(job, settings, manifest, phases, tokenizer, config, validation, eval_collator, folder, inputs, place)


def run_history(run: Run) -> str | None:
    """The folder of the run's live history: one per checkpoint fingerprint, continued by every segment of the run
    (None: the job keeps none)."""
    if run.job.tracking_dir is None or not run.job.trackers:
        return None
    return str(Path(run.job.tracking_dir) / run.folder.name)


def phase_record(phase: Phase, trainer, result) -> PhaseRecord:
    """What training_metrics.json says of one phase; `result` None for a phase done before this job started."""
    record = PhaseRecord(
        phase=phase.number,
        block_size=phase.block_size,
        first_step=phase.start + 1,
        last_step=phase.stop,
        global_batch_size=global_batch_size(trainer.args) if trainer else None,
        predictions_per_block=phase.predictions,
        peak_learning_rate=phase.learning_rate,
        trained_here=result is not None,
    )
    if result is None:
        return record
    samples_per_second = result.metrics["train_samples_per_second"]
    return dataclasses.replace(
        record,
        train_runtime=result.metrics["train_runtime"],
        train_samples_per_second=samples_per_second,
        train_tokens_per_second=samples_per_second * phase.block_size,
    )


def summary(
    run: Run, trainer, phases: list[PhaseRecord], resumed_from: str | None, segment: Segment
) -> TrainingMetrics:
    """training_metrics.json: the run's totals over the phases this job trained (timings None where it trained
    none), each phase's record, the jobs (segments) the run took, its base and whether its history is kept."""
    history = trainer.state.log_history
    losses = [entry["loss"] for entry in history if "loss" in entry]
    evals = [entry["eval_loss"] for entry in history if "eval_loss" in entry]
    trained = [phase for phase in phases if phase.trained_here]
    runtime = sum(phase.train_runtime for phase in trained) if trained else None
    samples = sum(phase.train_samples_per_second * phase.train_runtime for phase in trained)
    tokens = sum(phase.train_tokens_per_second * phase.train_runtime for phase in trained)
    segments = segment.segments(trainer.state.global_step) if trained else segment.earlier
    live = run_history(run)
    return TrainingMetrics(
        backend=run.job.backend,
        world_size=trainer.args.world_size,
        global_batch_size=global_batch_size(trainer.args),
        steps=trainer.state.global_step,
        resumed_from=resumed_from,
        train_runtime=runtime,
        train_samples_per_second=samples / max(runtime, 1e-9) if trained else None,
        train_tokens_per_second=tokens / max(runtime, 1e-9) if trained else None,
        initial_loss=losses[0] if losses else None,
        final_loss=losses[-1] if losses else None,
        final_eval_loss=evals[-1] if evals else None,
        phases=tuple(phases),
        segments=tuple(segments),
        init_from=run.job.model[INIT_FROM],
        history=HISTORY if live is not None and Path(live).is_dir() else None,
    )


def phase_trainer(run: Run, phase: Phase, segment: Segment | None = None, resuming: bool = False):
    """The trainer of `phase` in this job's `segment` of the run (default: a run from step 1), with the model as
    initialised from the seed (a checkpoint that it is `resuming` replaces it)."""
    job, settings = run.job, run.settings
    set_seed(settings["seed"])
    model = masked_positions_model(run.config, job.model[INIT_FROM], run.tokenizer, resuming)
    train = BlockDataset(run.manifest, Path(job.manifest).parent, "train", block_size=phase.block_size)
    collator = BlockCollator(run.tokenizer, phase.predictions, settings["seed"], settings["corruption"])
    collators = (collator, run.eval_collator)
    trainer = build_trainer(job, settings, phase, str(run.folder), model, collators, train, run.validation, segment)
    hyperparameters = {"model": job.model, "pretrain": settings}
    for callback in tracking_callbacks(job.trackers, run_history(run), run.folder.name, hyperparameters, job.tracking):
        trainer.add_callback(callback)
    blocks = first_batch_blocks(trainer, train)
    print(
        f"{run.place}: the first batch of epoch 0 reads train blocks {blocks} (phase {phase.number}: "
        f"{phase.block_size}-token blocks, steps {phase.start + 1}-{phase.stop})",
        flush=True,
    )
    return trainer


def pretrain(job: TrainingJob, out: str) -> TrainingMetrics | None:
    """Train every phase in order, each from the newest checkpoint of the run (the previous phase's last one when
    it starts), and save the model into `out`. A run that fails before its first checkpoint leaves no folder; a
    signal saves a checkpoint and stops the run (stop_request.py)."""
    with StopRequest() as request, naming_a_full_disk(job.checkpoints, "run's checkpoints"):
        run = prepare_run(job)
        try:
            return train_phases(run, out, request)
        except BaseException:
            discard_unused(run.folder)
            raise


def segment_line(segment: Segment, max_steps: int, deadline: Deadline) -> str:
    """What the log says of this job's part of the run when it starts."""
    *earlier, this_job = segment.segments(max_steps)
    line = f"segment {len(earlier) + 1} of the run: steps {step_ranges([this_job])}"
    line += f" (earlier segments trained steps {step_ranges(earlier)})" if earlier else ""
    if deadline.end is not None:
        end = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(deadline.end))
        line += f"; the job ends at {end}: the run saves and stops {deadline.margin / 60:g} minutes, a step and a"
        line += " checkpoint save before it"
    return line


def train_phases(run: Run, out: str, request: StopRequest) -> TrainingMetrics | None:
    """The run's phases, in order, then the model saved into `out` by the first process; StoppedOnRequest once a
    stop `request` has been saved."""
    job = run.job
    first_resume = resume_point(job.checkpoints, run.inputs, print)
    segment = Segment.resuming(first_resume)
    if first_resume is not None and checkpoint_step(first_resume) >= run.phases[-1].stop:
        return save_again(run, first_resume, segment, out)
    deadline = Deadline(run.settings["stop_before_deadline"], job_end_time(), segment)
    print(segment_line(segment, run.settings["max_steps"], deadline), flush=True)
    history = run_history(run)
    if history:
        print(f"history: {', '.join(job.trackers)} in {history} (tensorboard --logdir logs/tracking)", flush=True)
    records, trainer = [], None
    for phase in run.phases:
        resume = first_resume if phase is run.phases[0] else resume_point(job.checkpoints, run.inputs, print)
        done = resume is not None and checkpoint_step(resume) >= phase.stop
        if done and phase is not run.phases[-1]:
            records.append(phase_record(phase, None, None))
            continue
        trainer, stop = phase_trainer(run, phase, segment, resume is not None), StopOnRequest(request, deadline)
        divergence = StopWhenDiverged()
        trainer.add_callback(stop)
        trainer.add_callback(divergence)
        result = trainer.train(resume_from_checkpoint=resume)
        trainer.accelerator.wait_for_everyone()  # every rank sees the phase's last checkpoint complete
        if divergence.found:
            raise diverged(divergence.found, str(run.folder))
        if stop.stopped_at is not None:
            raise report_stop(stopped(stop, str(run.folder)))
        records.append(phase_record(phase, trainer, result))
    return save_run(run, trainer, summary(run, trainer, records, first_resume, segment), out)


def save_run(run: Run, trainer, metrics: TrainingMetrics, out: str) -> TrainingMetrics:
    """Save the model, its training metrics, its log history and its live history (when `metrics` says it is kept)
    into `out`, and keep a copy in the run's checkpoint folder (finished_run.py), by the first process."""
    print(f"{run.place}: trained weights sha256 {weights_digest(trainer.model)}", flush=True)
    if trainer.is_world_process_zero():
        with atomic_path(out) as tmp:
            save_masked_lm(trainer, run.tokenizer, tmp)
            write_training_metrics(tmp, metrics)
            write_log_history(tmp, trainer.state.log_history)
            if metrics.history:
                shutil.copytree(run_history(run), tmp / metrics.history)
        keep_finished(Path(out), run.folder)
    return metrics


def save_again(run: Run, checkpoint: str, segment: Segment, out: str) -> TrainingMetrics | None:
    """A job that starts after its run's last step trains nothing: the model folder the run saved, which it keeps, is
    saved into `out` again. A run that kept none (it finished before runs kept it) saves its last checkpoint's weights
    and log history, with the run's segments and phases but no timings: this job measured none."""
    print(finished_line(checkpoint, checkpoint_step(checkpoint), run.folder), flush=True)
    if kept_finished(run.folder):
        return save_finished(run.folder, out) if rank(run.job.backend) == 0 else None
    trainer = phase_trainer(run, run.phases[-1], segment, resuming=True)
    trainer._load_from_checkpoint(checkpoint)
    trainer.state = TrainerState.load_from_json(str(Path(checkpoint) / TRAINER_STATE_NAME))
    records = [phase_record(phase, None, None) for phase in run.phases]
    return save_run(run, trainer, summary(run, trainer, records, checkpoint, segment), out)
