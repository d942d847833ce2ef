"""One training setup for every backend (backends.py): transformers' Trainer on CPU or CUDA, optimum-habana's
GaudiTrainer on HPU.

Each trainer trains in EpochSampler's order (a pure function of the shuffle seed and the epoch) and logs its
progress as one line per logging step."""

from pathlib import Path

from transformers import PrinterCallback

from .backends import BACKENDS, GAUDI_CONFIG
from .blocks import EpochSampler
from .progress import ProgressLog


class EpochOrder:
    """A trainer mixin: the training order comes from EpochSampler, not from the trainer's random sampler."""

    def _get_train_sampler(self, *args, **kwargs):  # the signature differs between transformers 4.51 and 5
        return EpochSampler(len(self.train_dataset), self.args.data_seed)


def common_arguments(settings: dict, output_dir: str) -> dict:
    """TrainingArguments shared by every backend (names valid in transformers 4.51 and 5)."""
    return {
        "output_dir": output_dir,
        "max_steps": settings["max_steps"],
        "per_device_train_batch_size": settings["per_device_train_batch_size"],
        "per_device_eval_batch_size": settings["per_device_eval_batch_size"],
        "gradient_accumulation_steps": settings["gradient_accumulation_steps"],
        "learning_rate": settings["learning_rate"],
        "warmup_steps": settings["warmup_steps"],
        "weight_decay": settings["weight_decay"],
        "max_grad_norm": settings["max_grad_norm"],
        "lr_scheduler_type": "linear",
        "logging_steps": settings["logging_steps"],
        "logging_first_step": True,
        "save_strategy": "steps",
        "save_steps": settings["save_steps"],
        "save_total_limit": settings["save_total_limit"],
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
    backend: str,
    settings: dict,
    output_dir: str,
    model,
    collator,
    train,
    validation,
    on_device=True,
    gaudi_config: str | Path = GAUDI_CONFIG,
):
    """The trainer of `backend` (BACKENDS), training in EpochSampler's order and logging progress lines.
    `on_device=False` runs the HPU path's classes on the CPU (for tests)."""
    arguments = common_arguments(settings, output_dir)
    base, args, extra = BACKENDS[backend].trainer(arguments, settings, str(gaudi_config), on_device)
    trainer_class = type(f"Block{base.__name__}", (EpochOrder, base), {})
    trainer = trainer_class(
        model=model, args=args, data_collator=collator, train_dataset=train, eval_dataset=validation, **extra
    )
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(ProgressLog(global_batch_size(trainer.args)))
    return trainer
