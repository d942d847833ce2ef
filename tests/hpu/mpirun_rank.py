"""A rank that gaudi_spawn starts over mpirun, for test_mpirun_stop.py: it takes a stop as pretrain's ranks do
(stop_request's StopRequest, and StopOnRequest's agreement of every rank on a gloo group after each step), then
spends SAVE_SECONDS on its checkpoint, longer than mpirun's 2 s between a signal and SIGKILL unless the launcher
extends them, leaves the checkpoint, and ends as pretrain does: one line, the stop reported, exit 75.

    python tests/hpu/mpirun_rank.py OUT
"""

import os
import sys
import time
from pathlib import Path

import torch.distributed as dist
from transformers import TrainerControl, TrainerState

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from snakebert.errors import run_cli
from snakebert.training.checkpoints import Segment
from snakebert.training.stop_request import Deadline, StopOnRequest, StopRequest, report_stop, stopped

SAVE_SECONDS = 5
STEP_SECONDS = 0.02  # a step's work


def main() -> None:
    out = Path(sys.argv[1])
    rank, world_size = int(os.environ["OMPI_COMM_WORLD_RANK"]), int(os.environ["OMPI_COMM_WORLD_SIZE"])
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    with StopRequest() as request:
        stop = StopOnRequest(request, Deadline(None, None, Segment()))
        stop.on_train_begin(None, None, None)
        print(f"rank {rank} ready", flush=True)
        state, control = TrainerState(), TrainerControl()
        while stop.stopped_at is None:
            time.sleep(STEP_SECONDS)
            state.global_step += 1
            stop.on_step_end(None, state, control)
        time.sleep(SAVE_SECONDS)  # inside the handlers, as pretrain saves: a signal passed on late only sets the flag
        (out / f"checkpoint-{stop.stopped_at}-rank-{rank}").touch()
        raise report_stop(stopped(stop, str(out)))


if __name__ == "__main__":
    run_cli(main)
