"""Training checkpoints live outside the rule's outputs, one folder per fingerprint of what shapes the result."""

import contextlib
import hashlib
import json
import shutil
from pathlib import Path

from ..errors import DataError

FINGERPRINT_FILE = "fingerprint.json"


def fingerprint(inputs: dict) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]


def run_directory(root: str, inputs: dict) -> Path:
    """`root/<fingerprint>`, holding the fingerprint's inputs so that a later run can say what differs."""
    folder = Path(root) / fingerprint(inputs)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FINGERPRINT_FILE).write_text(json.dumps(inputs, indent=1, sort_keys=True) + "\n")
    return folder


def discard_unused(folder: Path) -> None:
    """Remove a run folder that holds no more than its fingerprint (its run failed before the first save), and the
    checkpoint root if that leaves it empty: a failed run leaves no folder that looks like a run's."""
    if folder.is_dir() and {path.name for path in folder.iterdir()} <= {FINGERPRINT_FILE}:
        shutil.rmtree(folder, ignore_errors=True)  # every rank may try: the first removes it
        with contextlib.suppress(OSError):
            folder.parent.rmdir()


def checkpoint_step(checkpoint: str | Path) -> int:
    """The run's step at which a checkpoint folder (checkpoint-N) was saved."""
    return int(Path(checkpoint).name.rsplit("-", 1)[1])


def complete_checkpoints(folder: Path) -> list[Path]:
    """Checkpoints that were written to the end (the trainer state is saved last), oldest first."""
    found = [path for path in folder.glob("checkpoint-*") if (path / "trainer_state.json").exists()]
    return sorted(found, key=checkpoint_step)


def _differences(inputs: dict, other: dict, prefix: str = "") -> list[str]:
    keys = sorted(set(inputs) | set(other))
    changed = []
    for key in keys:
        mine, theirs = inputs.get(key), other.get(key)
        if isinstance(mine, dict) and isinstance(theirs, dict):
            changed += _differences(mine, theirs, f"{prefix}{key}.")
        elif mine != theirs:
            changed.append(f"{prefix}{key}")
    return changed


def resume_point(root: str, inputs: dict, log) -> str | None:
    """The newest complete checkpoint of this fingerprint; `log` says why others are not used. Without one, a run
    that differs only in its world size is refused rather than started over: another node or device count is
    likely a mistake, and it changes the global batch and the data order, so that run cannot be resumed."""
    own = Path(root) / fingerprint(inputs)
    checkpoints = complete_checkpoints(own)
    for folder in sorted(Path(root).glob("*/")):
        record = folder / FINGERPRINT_FILE
        if folder == own or not record.exists() or not complete_checkpoints(folder):
            continue
        recorded = json.loads(record.read_text())
        changed = _differences(inputs, recorded)
        if changed == ["world_size"] and not checkpoints:
            raise DataError(
                f"{folder} holds this run up to step {checkpoint_step(complete_checkpoints(folder)[-1])} at world size "
                f"{recorded['world_size']}, and this launch has {inputs['world_size']} ranks: resume it with the "
                "nodes and devices it had, or move that folder away to train anew at this world size"
            )
        log(f"not resuming from {folder}: it was trained with other settings ({', '.join(changed)})")
    if checkpoints:
        log(f"resuming from {checkpoints[-1]} (step {checkpoint_step(checkpoints[-1])})")
        return str(checkpoints[-1])
    log(f"no checkpoint to resume from in {own}: training from scratch")
    return None
