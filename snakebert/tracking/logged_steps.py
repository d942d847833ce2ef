"""Steps a tracker has already been sent, so that a resumed segment does not send them twice.

A run killed after logging steps its last checkpoint does not hold (kill -9, a lost node) repeats them when it
resumes. TensorBoard's history purges them (tensorboard.py); W&B and MLflow cannot take a step back, so
their callbacks skip every step up to the last one the run's earlier segments sent. Resume is bit-identical, so
what they skip equals what they hold, but for the seconds-based rates. The last step sent is kept in the run's
history folder, one file per tracker and run identity (a fine-tuning run's folder is its task, model, rate and seed,
which runs of other settings share), written by the main process after each logging step."""

from pathlib import Path


class SkipsLoggedSteps:
    """A mixin for a transformers tracker callback (before it in the bases): its `on_log` passes a step on only if
    the run `identity`'s earlier segments did not send it (`folder`/`tracker`-`identity`.step holds the last one)."""

    def __init__(self, folder: Path, tracker: str, identity: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.marker = folder / f"{tracker}-{identity}.step"
        self.sent_before = 0

    def on_train_begin(self, args, state, control, **kwargs):
        self.sent_before = int(self.marker.read_text()) if self.marker.is_file() else 0
        super().on_train_begin(args, state, control, **kwargs)

    def on_log(self, args, state, control, **kwargs):
        if state.global_step <= self.sent_before:
            return
        super().on_log(args, state, control, **kwargs)
        if state.is_world_process_zero:
            self.marker.parent.mkdir(parents=True, exist_ok=True)
            self.marker.write_text(f"{state.global_step}\n")
