"""A signal is a request to save and stop: SIGTERM (a time limit, preemption, scancel), SIGUSR1 (SLURM's
`--signal`) or SIGINT. The handler only sets a flag (no I/O, no collectives; a second signal sets it again). After
each optimizer step the ranks agree, a max-reduce of their flags on a CPU (gloo) group, so that when any rank was
signalled every rank saves one checkpoint at the same step, through the periodic checkpoints' path, and stops. The
job then exits with errors.STOPPED_EXIT, and a rerun resumes from that checkpoint, bit-identical to an unbroken run."""

import signal

import torch
import torch.distributed as dist
from transformers import TrainerCallback

from ..errors import StoppedOnRequest

STOP_SIGNALS = (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT)


class StopRequest:
    """The signal this process was sent (0: none), set by its handlers while the `with` block runs; the previous
    handlers come back after it."""

    def __init__(self) -> None:
        self.signal = 0
        self.previous = {}

    def __enter__(self) -> "StopRequest":
        self.previous = {number: signal.signal(number, self._handle) for number in STOP_SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)

    def _handle(self, number: int, frame) -> None:
        self.signal = number


class StopOnRequest(TrainerCallback):
    """Ends training after the first optimizer step at which any rank holds a stop request, every rank saving a
    checkpoint of that step (`stopped_at`, with the signal in `signal`)."""

    def __init__(self, request: StopRequest) -> None:
        self.request = request
        self.group = None
        self.stopped_at = None
        self.signal = 0

    def on_train_begin(self, args, state, control, **kwargs):
        if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
            self.group = dist.new_group(backend="gloo")  # every rank reaches this: a collective of all ranks

    def on_step_end(self, args, state, control, **kwargs):
        flag = torch.tensor([self.request.signal], dtype=torch.int64)
        if self.group is not None:
            dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=self.group)
        if flag.item():
            self.stopped_at, self.signal = state.global_step, int(flag.item())
            control.should_save = True
            control.should_training_stop = True
        return control


def stopped(stop: StopOnRequest, checkpoint_folder: str) -> StoppedOnRequest:
    """What a stopped run says, in one line."""
    name = signal.Signals(stop.signal).name
    return StoppedOnRequest(
        f"stopped on request ({name}) at step {stop.stopped_at}: checkpoint saved in "
        f"{checkpoint_folder}/checkpoint-{stop.stopped_at}; run again to continue from it"
    )
