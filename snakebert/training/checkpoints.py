"""Training checkpoints live outside the rule's outputs, one folder per fingerprint of what shapes the result."""

import hashlib
import json
from pathlib import Path

FINGERPRINT_FILE = "fingerprint.json"


def fingerprint(inputs: dict) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]


def run_directory(root: str, inputs: dict) -> Path:
    """`root/<fingerprint>`, holding the fingerprint's inputs so that a later run can say what differs."""
    folder = Path(root) / fingerprint(inputs)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FINGERPRINT_FILE).write_text(json.dumps(inputs, indent=1, sort_keys=True) + "\n")
    return folder


def _step(checkpoint: Path) -> int:
    return int(checkpoint.name.rsplit("-", 1)[1])


def complete_checkpoints(folder: Path) -> list[Path]:
    """Checkpoints that were written to the end (the trainer state is saved last), oldest first."""
    found = [path for path in folder.glob("checkpoint-*") if (path / "trainer_state.json").exists()]
    return sorted(found, key=_step)


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
    """The newest complete checkpoint of this fingerprint; `log` says why others are not used."""
    own = Path(root) / fingerprint(inputs)
    for folder in sorted(Path(root).glob("*/")):
        record = folder / FINGERPRINT_FILE
        if folder == own or not record.exists() or not complete_checkpoints(folder):
            continue
        changed = _differences(inputs, json.loads(record.read_text()))
        log(f"not resuming from {folder}: it was trained with other settings ({', '.join(changed)})")
    checkpoints = complete_checkpoints(own)
    if checkpoints:
        log(f"resuming from {checkpoints[-1]} (step {_step(checkpoints[-1])})")
        return str(checkpoints[-1])
    log(f"no checkpoint to resume from in {own}: training from scratch")
    return None
