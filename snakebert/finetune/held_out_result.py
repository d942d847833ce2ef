"""What a baseline or a linear probe finds on a prepared task, before its file's view holds it (baselines_file.py,
probe_file.py): its scores on each held-out split, its predictions on the reported one, and what validation chose."""

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class HeldOutResult:
    """Its scores on validation and on test (None where the task has no test split), its predictions on the reported
    split, the regularisation strength validation chose (None: it fits none) and the no-answer threshold (None but
    for a probe of a task whose questions may have no answer)."""

    validation: dict[str, float | None]
    test: dict[str, float | None] | None
    predictions: list
    strength: float | None = None
    no_answer_threshold: float | None = None
