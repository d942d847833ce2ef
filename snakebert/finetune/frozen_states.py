"""What the linear probes read of a frozen model: its last hidden states, batch by batch in fixed-size batches
(hidden_states), refused where they are not finite (finite), and the strengths a probe's regression is tried at."""

from collections.abc import Iterator

import numpy as np
import torch

from ..errors import DataError
from ..training.eval_metrics import EVAL_METRICS
from ..training.training_metrics import FILE_NAME as TRAINING_METRICS

STRENGTHS = (0.001, 0.01, 0.1, 1.0, 10.0)  # logistic regression's C on standardised features; ridge's alpha: 1 / C


@torch.no_grad()
def hidden_states(model, split, batch_size: int, device: str) -> Iterator[tuple[int, torch.Tensor, torch.Tensor]]:
    """Each fixed-size batch of `split` (one shape): its first row, the model's last hidden states and the attention
    mask."""
    for start in range(0, len(split), batch_size):
        batch = [split[index] for index in range(start, start + batch_size)]
        inputs = {name: torch.stack([item[name] for item in batch]).to(device) for name in split.inputs}
        yield start, model(**inputs).last_hidden_state, inputs["attention_mask"]


def finite(found: np.ndarray, split: str, name: str, source: str) -> np.ndarray:
    """`found` (a split's features, a row per example), refused, naming the model and the split, where any is not
    finite."""
    bad = int((~np.isfinite(found)).reshape(len(found), -1).any(axis=1).sum())
    if bad:
        raise DataError(
            f"linear probe of finetune model {name!r} ({source}): its features of {bad} of {len(found)} {split} "
            "examples are not finite (nan or inf), so no regression can be fitted on them: its weights hold values "
            "that are not finite, or its activations overflow; check the model (the pretrained model: pretraining's "
            f"{TRAINING_METRICS} and {EVAL_METRICS}) and rerun"
        )
    return found
