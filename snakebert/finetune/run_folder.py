"""A fine-tuning run's checkpoint folder, `checkpoints/finetune/{task}/{model}/{rate}/[fold-F/]seed-N/<fingerprint>/`
(the run's own folder, then one per fingerprint of what shapes its result): made, with its fingerprint, as the run
saves its first checkpoint, so that a run stopped before it, failed or killed, leaves no folder; removed once the
run's result is written, with each folder above it that this leaves empty, up to and including
checkpoints/finetune. A killed run's saved checkpoint stays, for the rerun to resume from (training/checkpoints.py)."""

import shutil
from pathlib import Path

from ..training.checkpoints import discard_unused, run_directory
from .plan import CHECKPOINTS

MAKE_ATTEMPTS = 5  # another run may remove an empty folder above this one (remove_emptied) just as it is made


def made(folder: Path, inputs: dict | None = None) -> None:
    """Make `folder` and the folders above it, and write the fingerprint of `inputs` in it (given them)."""
    for attempt in range(MAKE_ATTEMPTS):
        try:
            if inputs is None:
                folder.mkdir(parents=True, exist_ok=True)
            else:
                run_directory(str(folder.parent), inputs)
            return
        except FileNotFoundError:
            if attempt == MAKE_ATTEMPTS - 1:
                raise


def remove_emptied(folder: Path, own: Path) -> None:
    """Remove `folder` where it holds nothing but its fingerprint, then each folder above it while it is empty: up to
    the run's own folder `own`, and past it up to and including CHECKPOINTS."""
    discard_unused(folder)
    for path in (folder, *folder.parents):
        if not (path.is_relative_to(own) or path.is_relative_to(CHECKPOINTS)):
            return
        try:
            path.rmdir()
        except FileNotFoundError:
            continue
        except OSError:  # not empty: another run's, or a checkpoint kept for a resume
            return


def remove_finished(folder: Path, own: Path) -> None:
    """Remove a finished run's folder and each folder above it that this leaves empty (remove_emptied)."""
    shutil.rmtree(folder, ignore_errors=True)
    remove_emptied(folder, own)


class FolderAtFirstSave:
    """A trainer mixin: the run's folder (the trainer's output_dir) is made, with the fingerprint of
    `fingerprint_inputs`, as a checkpoint is saved, before the trainer writes the checkpoint in it."""

    fingerprint_inputs: dict | None = None

    def _save_checkpoint(self, model, trial):
        made(Path(self.args.output_dir), self.fingerprint_inputs)
        super()._save_checkpoint(model, trial)
