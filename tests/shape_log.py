"""A stand-in for graph-mode hardware (a Gaudi builds one graph per set of tensor shapes): the op-by-op record of
every tensor shape one training step creates, forward and backward."""

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


class ShapeLog(TorchDispatchMode):
    """Records (op, output shapes) for every op dispatched while active."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[tuple[str, tuple]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        shapes = tuple(tuple(leaf.shape) for leaf in tree_flatten(out)[0] if isinstance(leaf, torch.Tensor))
        self.ops.append((str(func), shapes))
        return out


def step_shapes(step, batch) -> list[tuple[str, tuple]]:
    """The shape log of `step(batch)`."""
    with ShapeLog() as log:
        step(batch)
    return log.ops


def changed_ops(logs: list[list[tuple[str, tuple]]]) -> list[tuple[int, str]]:
    """(index, op) of each op whose shapes differ between the first log and any other (or a length mismatch)."""
    first = logs[0]
    changed = set()
    for other in logs[1:]:
        if len(other) != len(first):
            changed.add((min(len(other), len(first)), "op count differs"))
        changed |= {
            (index, op) for index, (op, _) in enumerate(first) if index < len(other) and other[index] != first[index]
        }
    return sorted(changed)


def training_step_shapes(trainer, batch) -> list[tuple[str, tuple]]:
    """The shape log of one `trainer.training_step` (forward and backward) on `batch`, from fresh gradients (the items
    its loss averages over: its labels, none for a question-answering batch's start and end positions)."""
    trainer.model.zero_grad(set_to_none=True)
    count = batch["labels"].ne(-100).sum() if "labels" in batch else None
    trainer.current_gradient_accumulation_steps = 1  # as train() sets it, where no count scales the loss
    return step_shapes(lambda inputs: trainer.training_step(trainer.model, inputs, count), batch)
