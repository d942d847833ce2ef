"""Run scripts/pretrain.py (the arguments after the first two) and interrupt it at a chosen point, as a node or a
scheduler would, for tests/workflow/test_stop_request.py, test_stop_ranks.py and test_training.py:

    python tests/interrupt.py kill-in-save STEP ...        SIGKILL in the middle of the checkpoint save at STEP:
                                                           the model and the first bytes of the optimizer written
    python tests/interrupt.py kill-after-save STEP ...     the first rank sends SIGKILL to its process group once
                                                           the checkpoint at STEP is complete (its complete.json
                                                           written), as when the node dies
    python tests/interrupt.py term-in-evaluation RANK ...  rank RANK sends SIGTERM to its process group (every rank
                                                           and the launcher) as the first evaluation starts

Whatever kills a process group is started in a session of its own (a workflow run's pretrain job goes through
here with helpers.interrupting_env)."""

import os
import runpy
import signal
import sys
from pathlib import Path

from transformers import Trainer

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the package scripts/pretrain.py imports, so that what is replaced here is what it runs

from snakebert.training.trainers import SealedCheckpoints  # noqa: E402 (the checkout is on the path)

POINT, WHEN = sys.argv.pop(1), int(sys.argv.pop(1))
save_optimizer, evaluate = Trainer._save_optimizer_and_scheduler, Trainer.evaluate
sealed_save = SealedCheckpoints._save_checkpoint
RANK = int(os.environ.get("RANK", "0"))


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


if POINT == "kill-in-save":
    Trainer._save_optimizer_and_scheduler = dying_save
elif POINT == "kill-after-save":
    SealedCheckpoints._save_checkpoint = save_then_die
elif POINT == "term-in-evaluation":
    Trainer.evaluate = signalled_evaluation
else:
    raise SystemExit(f"unknown interruption {POINT!r}")
sys.argv[0] = str(REPO / "scripts/pretrain.py")
runpy.run_path(sys.argv[0], run_name="__main__")
