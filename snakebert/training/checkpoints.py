"""Training checkpoints live outside the rule's outputs, one folder per fingerprint of what shapes the result."""

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DataError

FINGERPRINT_FILE = "fingerprint.json"
COMPLETE_FILE = "complete.json"  # written last, atomically, once every rank's files of a checkpoint are on disk


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


def saved_checkpoints(folder: Path) -> list[Path]:
    """Every checkpoint folder of a run, complete or not, oldest first."""
    return sorted(folder.glob("checkpoint-*"), key=checkpoint_step)


def complete_checkpoints(folder: Path) -> list[Path]:
    """Checkpoints whose save finished on every rank (they hold COMPLETE_FILE), oldest first."""
    return [path for path in saved_checkpoints(folder) if (path / COMPLETE_FILE).exists()]


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def seal(checkpoint: Path, record: dict) -> None:
    """Mark a checkpoint complete: its files flushed to disk, then `record` written as COMPLETE_FILE by a rename
    (called by one rank, after every rank has written its files)."""
    for path in sorted(checkpoint.rglob("*")):
        _fsync(path)
    tmp = checkpoint / f".{COMPLETE_FILE}.tmp"
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    _fsync(tmp)
    os.replace(tmp, checkpoint / COMPLETE_FILE)
    _fsync(checkpoint)


def rotate(folder: Path, keep: int) -> None:
    """Keep the newest `keep` complete checkpoints; remove older ones, and unfinished saves older than the newest
    complete one (a newer unfinished one is a save in progress)."""
    complete = complete_checkpoints(folder)
    if not complete:
        return
    newest = checkpoint_step(complete[-1])
    unfinished = [path for path in saved_checkpoints(folder) if path not in complete and checkpoint_step(path) < newest]
    for path in complete[:-keep] + unfinished:
        shutil.rmtree(path, ignore_errors=True)


def checkpoint_record(checkpoint: str | Path | None) -> dict:
    """What a complete checkpoint's COMPLETE_FILE says (nothing for no checkpoint)."""
    return json.loads((Path(checkpoint) / COMPLETE_FILE).read_text()) if checkpoint else {}


@dataclass
class Segment:
    """This job's part of a run: the steps it trains from `first_step`, after the `earlier` jobs' (each a record of
    first and last step), and the seconds the last checkpoint save took (None until one is measured)."""

    first_step: int = 1
    earlier: list[dict] = field(default_factory=list)
    save_seconds: float | None = None

    @classmethod
    def resuming(cls, checkpoint: str | None) -> "Segment":
        record = checkpoint_record(checkpoint)
        first = checkpoint_step(checkpoint) + 1 if checkpoint else 1
        return cls(first, record.get("segments", []), record.get("save_seconds"))

    def segments(self, last_step: int) -> list[dict]:
        """The run's jobs up to `last_step` of this one."""
        return [*self.earlier, {"first_step": self.first_step, "last_step": last_step}]


def step_ranges(segments: list[dict], grouped: bool = False) -> str:
    """The steps of each segment record (Segment.segments), `first-last` joined by commas; `grouped`: thousands
    separated by commas, as the report writes numbers."""
    digits = "," if grouped else ""
    return ", ".join(f"{part['first_step']:{digits}}-{part['last_step']:{digits}}" for part in segments)


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
    for path in saved_checkpoints(own):
        if path not in checkpoints and (not checkpoints or checkpoint_step(path) > checkpoint_step(checkpoints[-1])):
            log(f"not resuming from {path}: its save did not finish (it has no {COMPLETE_FILE})")
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
