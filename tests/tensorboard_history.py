"""A TensorBoard history read back as TensorBoard reads it (its own EventAccumulator, which applies each writer's
purge of the steps it logs again)."""

from pathlib import Path

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def events(folder: Path) -> EventAccumulator:
    """Every event of the history in `folder`, none dropped by sampling."""
    accumulator = EventAccumulator(str(folder), size_guidance={"scalars": 0, "tensors": 0})
    accumulator.Reload()
    return accumulator


def scalars(accumulator: EventAccumulator, tag: str) -> list[tuple[int, float]]:
    """(step, value) of each point of `tag`'s curve."""
    return [(event.step, event.value) for event in accumulator.Scalars(tag)]
