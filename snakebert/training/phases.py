"""Sequence-length phases: the steps of a pretraining run split into phases trained in order by one job, each with
its own block size (a packing of the same token files), batch size and masking, so that every phase has static
shapes (one graph per phase on Gaudi). Without `pretrain.phases` a run is one phase of `data.block_size` blocks.

Steps are counted over the whole run: phase n trains steps start+1 .. stop, and its checkpoints are named by the
run's step, so the newest checkpoint says which phase to resume."""

from dataclasses import dataclass

from ..errors import DataError
from .masking import predictions_per_block

PHASE_SETTINGS = ("per_device_train_batch_size", "mlm_probability", "max_predictions", "learning_rate", "warmup_steps")


@dataclass(frozen=True)
class Phase:
    number: int  # from 1
    block_size: int
    start: int  # the run's step before the phase's first step
    steps: int
    per_device_train_batch_size: int
    mlm_probability: float
    max_predictions: int | None
    learning_rate: float
    warmup_steps: int

    @property
    def stop(self) -> int:
        return self.start + self.steps

    @property
    def predictions(self) -> int:
        """Masked positions per block."""
        return predictions_per_block(self.block_size, self.mlm_probability, self.max_predictions)


def _phase_steps(spec: dict, index: int, settings: dict, start: int, last: bool) -> int:
    """A phase's steps: `steps`, or its `fraction` of max_steps, rounded; the last phase's fraction takes what the
    others' rounding left (within a step of its share)."""
    key, max_steps = f"config pretrain.phases[{index}]", settings["max_steps"]
    if ("steps" in spec) == ("fraction" in spec):
        raise DataError(f"{key}: give either steps or fraction")
    if "steps" in spec:
        return spec["steps"]
    share = spec["fraction"] * max_steps
    steps = max_steps - start if last and abs(max_steps - start - share) <= 1 else round(share)
    if steps < 1:
        raise DataError(f"{key}: fraction {spec['fraction']} of max_steps {max_steps} is no step")
    return steps


def plan_phases(settings: dict, block_size: int) -> list[Phase]:
    """The phases of the `pretrain` settings, `block_size` the data set's; a DataError names the key at fault."""
    specs = settings["phases"] or [{"block_size": block_size, "steps": settings["max_steps"]}]
    phases, start = [], 0
    for index, spec in enumerate(specs):
        steps = _phase_steps(spec, index, settings, start, index == len(specs) - 1)
        overrides = {key: spec.get(key, settings[key]) for key in PHASE_SETTINGS}
        phases.append(Phase(index + 1, spec["block_size"], start, steps, **overrides))
        start += steps
    if start != settings["max_steps"]:
        raise DataError(
            f"config pretrain.phases: the phases' steps add up to {start}, pretrain.max_steps is "
            f"{settings['max_steps']}"
        )
    return phases


def packing_sizes(settings: dict, block_size: int) -> list[int]:
    """The block sizes of the phases other than the data set's own, each packed from the token files."""
    return sorted({phase.block_size for phase in plan_phases(settings, block_size)} - {block_size})
