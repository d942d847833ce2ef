"""One training setup for every backend (backends.py): transformers' Trainer on CPU or CUDA, optimum-habana's
GaudiTrainer on HPU, one trainer per phase (phases.py).

Each trainer trains in EpochSampler's order (a pure function of the shuffle seed and the epoch), follows the
run's learning-rate schedule (schedule.py), evaluates with the evaluation's own masking, and logs its progress as
one line per logging step."""

import logging
import math
import time
from pathlib import Path

from torch.optim.lr_scheduler import LambdaLR
from transformers import PrinterCallback, TrainerCallback

from .backends import BACKENDS, TrainerOptions
from .block_dataset import EpochSampler
from .checkpoints import Segment, rotate, seal
from .job import TrainingJob
from .phases import Phase
from .progress import ProgressLog
from .schedule import peak_fraction


class EpochOrder:
    """A trainer mixin: the training order comes from EpochSampler, not from the trainer's random sampler."""

    def _get_train_sampler(self, *args, **kwargs):  # the signature differs between transformers 4.51 and 5
        self.epoch_sampler = EpochSampler(len(self.train_dataset), self.args.data_seed)
        return self.epoch_sampler


class SamplerEpoch(TrainerCallback):
    """Sets the trainer's EpochSampler to the epoch that begins, the whole part of the trainer's progress in
    epochs (`state.epoch`, resumed with the checkpoint). The trainer's own set_epoch does not reach it on every path:
    on 2 or more ranks, transformers 5 resumes mid-epoch through a SkipBatchSampler around accelerate's
    BatchSamplerShard, and set_epoch stops there, so the resumed epoch was read in epoch 0's order."""

    def __init__(self, trainer) -> None:
        self.trainer = trainer

    def on_epoch_begin(self, args, state, control, **kwargs):
        self.trainer.epoch_sampler.set_epoch(math.floor(state.epoch or 0))


class SealedCheckpoints:
    """A trainer mixin: a checkpoint is marked complete (checkpoints.seal, with what `record_of` adds) once every
    rank has written its part of it; resume takes only such checkpoints. `save_seconds`: how long the last save took
    until every rank had written its part, as the record says."""

    save_seconds: float | None = None

    def record_of(self, step: int) -> dict:
        return {}

    def _save_checkpoint(self, model, trial):
        started = time.monotonic()
        super()._save_checkpoint(model, trial)
        self.accelerator.wait_for_everyone()  # every rank's files of this checkpoint are written
        self.save_seconds = time.monotonic() - started
        if self.is_world_process_zero():
            step = self.state.global_step
            record = {"step": step, "save_seconds": self.save_seconds, **self.record_of(step)}
            seal(Path(self.args.output_dir) / f"checkpoint-{step}", record)


class StepSeconds(TrainerCallback):
    """Seconds spent inside training steps (each from its start to its end: no evaluation, save or wait for the
    next batch) and the steps counted, since they were last taken."""

    def __init__(self) -> None:
        self.seconds, self.steps, self.started = 0.0, 0, 0.0

    def on_step_begin(self, args, state, control, **kwargs):
        self.started = time.monotonic()

    def on_step_end(self, args, state, control, **kwargs):
        self.seconds += time.monotonic() - self.started
        self.steps += 1

    def take(self) -> tuple[float, int]:
        taken = (self.seconds, self.steps)
        self.seconds, self.steps = 0.0, 0
        return taken


def untied_missing(model, missing: list[str]) -> list[str]:
    """The keys a checkpoint load missed that hold a weight of their own: a decoder tied to the input embeddings is
    one weight under two names, saved once, and loading the other name restores it."""
    named = dict(model.named_parameters(remove_duplicate=False))
    loaded = [parameter for name, parameter in named.items() if name not in missing]
    return [name for name in missing if not any(named.get(name) is parameter for parameter in loaded)]


class PhaseBatchNotice(logging.Filter):
    """Drops transformers' warning that the batch size differs from the resumed checkpoint's when that is all it
    says: a phase starts from the previous phase's last checkpoint with its own batch size (phases.py), which the
    log's phase line already gives. Any other mismatch is still warned."""

    HEADING = "Warning: The following arguments do not match"
    BATCH_LINE = "\tper_device_train_batch_size: "

    def filter(self, record: logging.LogRecord) -> bool:
        heading, *mismatches = record.getMessage().splitlines()
        only_batch = mismatches and all(line.startswith(self.BATCH_LINE) for line in mismatches)
        return not (heading.startswith(self.HEADING) and only_batch)


# where transformers compares a resumed checkpoint's arguments with the run's: a function of trainer_utils in
# transformers 5, a Trainer method in 4.51 (the HPU stack's)
RESUME_LOGGERS = ("transformers.trainer_utils", "transformers.trainer")


class PhaseTraining(EpochOrder, SealedCheckpoints):
    """A trainer mixin for one phase of a run (the class attributes `phase`, `settings`, `eval_collator` and
    `segment`): the schedule of schedule.py, evaluation masked as every evaluation is, and sealed checkpoints that
    record the run's segments, kept `save_total_limit` at a time once a newer one is complete. Each logged training
    loss comes with the phase, its block size, and the samples and tokens per second of the steps since the last
    one (StepSeconds `step_seconds`). A resumed checkpoint's missing keys are warned of only when they are not tied to
    a loaded weight (untied_missing)."""

    phase: Phase
    settings: dict
    eval_collator: object
    segment: Segment
    step_seconds: StepSeconds

    def log(self, logs: dict, *args, **kwargs):
        if "loss" in logs:
            seconds, steps = self.step_seconds.take()
            samples = steps * global_batch_size(self.args) / seconds if seconds else 0.0
            logs = {**logs, "phase": self.phase.number, "block_size": self.phase.block_size,
                    "samples_per_second": samples, "tokens_per_second": samples * self.phase.block_size}  # fmt: skip
        super().log(logs, *args, **kwargs)

    def record_of(self, step: int) -> dict:
        return {"segments": self.segment.segments(step)}

    def _save_checkpoint(self, model, trial):
        super()._save_checkpoint(model, trial)
        if self.is_world_process_zero():
            rotate(Path(self.args.output_dir), self.settings["save_total_limit"])
        self.segment.save_seconds = self.save_seconds

    def _issue_warnings_after_load(self, load_result):
        super()._issue_warnings_after_load(
            load_result._replace(missing_keys=untied_missing(self.model, load_result.missing_keys))
        )

    def get_train_dataloader(self):
        # transformers 4.51 takes the batch size of the checkpoint it resumes, at a phase boundary the previous
        # phase's: this phase's is the arguments'
        self._train_batch_size = self.args.train_batch_size
        return super().get_train_dataloader()

    def get_eval_dataloader(self, eval_dataset=None):
        train_collator, self.data_collator = self.data_collator, self.eval_collator
        try:
            return super().get_eval_dataloader(eval_dataset)
        finally:
            self.data_collator = train_collator

    def create_scheduler(self, num_training_steps: int, optimizer=None):
        if self.lr_scheduler is None:
            phase, settings = self.phase, self.settings
            self.lr_scheduler = LambdaLR(optimizer or self.optimizer, lambda step: peak_fraction(step, phase, settings))
        return self.lr_scheduler

    def _load_optimizer_and_scheduler(self, checkpoint):
        """As the trainer loads them, but with this phase's peak: a phase that starts from the previous phase's
        last checkpoint takes its optimizer's moments, not its learning rate."""
        super()._load_optimizer_and_scheduler(checkpoint)
        if checkpoint is None:
            return
        peak, step = self.phase.learning_rate, self.lr_scheduler.last_epoch
        self.lr_scheduler.base_lrs = [peak for _ in self.optimizer.param_groups]
        for group in self.optimizer.param_groups:
            group["initial_lr"] = peak
            group["lr"] = peak * peak_fraction(step, self.phase, self.settings)


def common_arguments(settings: dict, phase: Phase, output_dir: str) -> dict:
    """TrainingArguments shared by every backend (names valid in transformers 4.51 and 5); the schedule is the
    trainer's own (PhaseTraining)."""
    return {
        "output_dir": output_dir,
        "max_steps": phase.stop,
        "per_device_train_batch_size": phase.per_device_train_batch_size,
        "per_device_eval_batch_size": settings["per_device_eval_batch_size"],
        "gradient_accumulation_steps": settings["gradient_accumulation_steps"],
        "learning_rate": phase.learning_rate,
        "adam_beta2": settings["adam_beta2"],
        "adam_epsilon": settings["adam_epsilon"],
        "weight_decay": settings["weight_decay"],
        "max_grad_norm": settings["max_grad_norm"],
        "logging_steps": settings["logging_steps"],
        "logging_first_step": True,
        "logging_nan_inf_filter": False,  # a step's nan or inf reaches the logged loss (divergence.py)
        "save_strategy": "steps",
        "save_steps": settings["save_steps"],
        "save_total_limit": None,  # PhaseTraining removes old checkpoints once a newer one is complete
        "eval_strategy": "steps",
        "eval_steps": settings["eval_steps"],
        "seed": settings["seed"],
        "data_seed": settings["shuffle_seed"],
        "dataloader_drop_last": True,
        "dataloader_num_workers": settings["dataloader_num_workers"],
        "remove_unused_columns": False,
        "ddp_find_unused_parameters": False,  # every parameter takes part in the loss: no extra graph walk per step
        "prediction_loss_only": True,
        "report_to": [],
        "disable_tqdm": True,
    }


def global_batch_size(args) -> int:
    """Blocks per optimizer step, over all processes."""
    return args.train_batch_size * args.gradient_accumulation_steps * args.world_size


def build_trainer(
    job: TrainingJob,
    settings: dict,
    phase: Phase,
    output_dir: str,
    model,
    collators: tuple,
    train,
    validation,
    segment: Segment | None = None,
):
    """The trainer of `phase` of the run on the job's backend (BACKENDS), with the run's `settings` and `collators`
    (training's, evaluation's), in the job's `segment` of the run (default: a run from step 1)."""
    arguments = common_arguments(settings, phase, output_dir)
    options = TrainerOptions(
        job.gaudi_config, job.on_device, settings["torch_compile"], settings["throughput_warmup_steps"]
    )
    base, args, extra = BACKENDS[job.backend].trainer(arguments, options)
    step_seconds = StepSeconds()
    members = {"phase": phase, "settings": settings, "eval_collator": collators[1], "segment": segment or Segment(),
               "step_seconds": step_seconds}  # fmt: skip
    trainer_class = type(f"Block{base.__name__}", (PhaseTraining, base), members)
    trainer = trainer_class(
        model=model, args=args, data_collator=collators[0], train_dataset=train, eval_dataset=validation, **extra
    )
    for resume_logger in map(logging.getLogger, RESUME_LOGGERS):
        if not any(isinstance(found, PhaseBatchNotice) for found in resume_logger.filters):
            resume_logger.addFilter(PhaseBatchNotice())
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(SamplerEpoch(trainer))
    trainer.add_callback(step_seconds)
    trainer.add_callback(ProgressLog(global_batch_size(trainer.args), settings["max_steps"]))
    return trainer
