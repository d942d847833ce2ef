"""Run scripts/pretrain.py (the arguments after the first two) and interrupt it at a chosen point, as a node, a
scheduler or a user would, for tests/workflow/test_stop_request.py, test_stop_ranks.py, test_stop_local.py and
test_training.py:

    python tests/interrupt.py kill-in-save STEP ...        SIGKILL in the middle of the checkpoint save at STEP:
                                                           the model and the first bytes of the optimizer written
    python tests/interrupt.py kill-after-save STEP ...     the first rank sends SIGKILL to its process group once
                                                           the checkpoint at STEP is complete (its complete.json
                                                           written), as when the node dies
    python tests/interrupt.py term-in-evaluation RANK ...  rank RANK sends SIGTERM to its process group (every rank
                                                           and the launcher) as the first evaluation starts
    python tests/interrupt.py wait-for-stop STEP ...       the last rank says `rank R: waiting for a stop signal
                                                           after step STEP` on stdout and waits there until a stop
                                                           signal reaches it: a signal sent once that line is out
                                                           stops the run at STEP, however long it took to come
    python tests/interrupt.py term-group-after-step STEP   the first rank sends SIGTERM to its process group after
                                                           step STEP
    python tests/interrupt.py term-leader-after-step STEP  the first rank sends SIGTERM after step STEP to its
                                                           process group's leader alone (a snakemake started in a
                                                           session of its own)
    python tests/interrupt.py deadline-at-step STEP        the job's end (a SLURM job's time limit) comes at the end
                                                           of step STEP: the run saves and stops there at its
                                                           deadline, however fast it trained (a job without an end
                                                           time runs on)

Whatever signals or kills a process group is started in a session of its own (a workflow run's pretrain job goes
through here with helpers.interrupting_env)."""

import os
import runpy
import signal
import sys
import time
from pathlib import Path

from transformers import Trainer

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the package scripts/pretrain.py imports, so that what is replaced here is what it runs

from snakebert.stop_signals import STOP_SIGNALS  # noqa: E402 (the checkout is on the path)
from snakebert.training.stop_request import StopOnRequest  # noqa: E402
from snakebert.training.trainers import SealedCheckpoints  # noqa: E402

POINT, WHEN = sys.argv.pop(1), int(sys.argv.pop(1))
save_optimizer, evaluate = Trainer._save_optimizer_and_scheduler, Trainer.evaluate
sealed_save, step_end = SealedCheckpoints._save_checkpoint, StopOnRequest.on_step_end
RANK, LAST_RANK = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1")) - 1


def dying_save(self, output_dir):
    if self.state.global_step == WHEN:
        (Path(output_dir) / "optimizer.pt").write_bytes(b"\0" * 1000)
        os.kill(os.getpid(), signal.SIGKILL)
    save_optimizer(self, output_dir)


def save_then_die(self, model, trial):
    sealed_save(self, model, trial)
    if self.state.global_step == WHEN and self.is_world_process_zero():  # the first rank seals the checkpoint
        os.killpg(os.getpgid(0), signal.SIGKILL)


def signalled_evaluation(self, *args, **kwargs):
    if RANK == WHEN and not getattr(Trainer, "signalled", False):
        Trainer.signalled = True
        os.killpg(os.getpgid(0), signal.SIGTERM)
    return evaluate(self, *args, **kwargs)


def wait_for_stop_signal() -> None:
    """Return once a stop signal has arrived: CPython writes the number of each signal it handles to the wakeup
    file, whichever thread the signal reached; the handler itself has run when the next Python function starts."""
    awaken, wake = os.pipe()
    os.set_blocking(wake, False)
    previous = signal.set_wakeup_fd(wake)
    try:
        print(f"rank {RANK}: waiting for a stop signal after step {WHEN}", flush=True)
        while os.read(awaken, 1)[0] not in STOP_SIGNALS:
            pass
    finally:
        signal.set_wakeup_fd(previous)
        os.close(awaken)
        os.close(wake)


def interrupted_step_end(self, args, state, control, **kwargs):
    """At the end of step WHEN, before the ranks agree on a stop: the interruption POINT names."""
    if state.global_step == WHEN:
        if POINT == "wait-for-stop" and RANK == LAST_RANK:
            wait_for_stop_signal()
        elif POINT == "term-group-after-step" and RANK == 0:
            os.killpg(os.getpgid(0), signal.SIGTERM)
        elif POINT == "term-leader-after-step" and RANK == 0:
            os.kill(os.getpgid(0), signal.SIGTERM)
        elif POINT == "deadline-at-step" and self.deadline.end is not None:
            self.deadline.end = time.time()
    return step_end(self, args, state, control, **kwargs)


if POINT == "kill-in-save":
    Trainer._save_optimizer_and_scheduler = dying_save
elif POINT == "kill-after-save":
    SealedCheckpoints._save_checkpoint = save_then_die
elif POINT == "term-in-evaluation":
    Trainer.evaluate = signalled_evaluation
elif POINT in ("wait-for-stop", "term-group-after-step", "term-leader-after-step", "deadline-at-step"):
    StopOnRequest.on_step_end = interrupted_step_end
else:
    raise SystemExit(f"unknown interruption {POINT!r}")
sys.argv[0] = str(REPO / "scripts/pretrain.py")
runpy.run_path(sys.argv[0], run_name="__main__")
