"""A pretraining run that diverged: a logged training or evaluation loss that is not finite (a learning rate too
large; the trainer's nan filter is off, so one step's nan or inf reaches the mean it logs). The run stops at that
logging step and saves no model: the job fails, naming the step and what to change, instead of writing a model
folder and metrics of nan."""

import math

from transformers import TrainerCallback

from ..errors import DataError

LOSSES = ("loss", "eval_loss")


class StopWhenDiverged(TrainerCallback):
    """Ends training at the first logged loss of `losses` (the trainer's log keys) that is not finite; `found` says
    which and where (None until then)."""

    def __init__(self, losses: tuple[str, ...] = LOSSES) -> None:
        self.losses = losses
        self.found = None

    def on_log(self, args, state, control, logs=None, **kwargs):
        bad = [key for key in self.losses if key in (logs or {}) and not math.isfinite(logs[key])]
        if bad and self.found is None:
            self.found = f"its {bad[0]} is {logs[bad[0]]} at step {state.global_step}"
            control.should_training_stop = True
        return control


def diverged(found: str, checkpoints: str) -> DataError:
    """What a job says of a run that diverged."""
    return DataError(
        f"pretraining diverged: {found}, so no model is saved; lower pretrain.learning_rate (or a phase's), "
        f"lengthen pretrain.warmup_steps or lower pretrain.max_grad_norm, and rerun (other settings are another run: "
        f"it starts anew, and this one's checkpoints stay in {checkpoints})"
    )
