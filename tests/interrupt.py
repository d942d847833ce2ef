"""Run scripts/pretrain.py (the arguments after the first two) and interrupt it at a chosen point, as a node or a
scheduler would, for tests/workflow/test_stop_request.py and test_stop_ranks.py:

    python tests/interrupt.py kill-in-save STEP ...        SIGKILL in the middle of the checkpoint save at STEP:
                                                           the model and the first bytes of the optimizer written
    python tests/interrupt.py term-in-evaluation RANK ...  rank RANK sends SIGTERM to its process group (every rank
                                                           and the launcher) as the first evaluation starts
"""

import os
import runpy
import signal
import sys
from pathlib import Path

from transformers import Trainer

REPO = Path(__file__).resolve().parents[1]
POINT, WHEN = sys.argv.pop(1), int(sys.argv.pop(1))
save_optimizer, evaluate = Trainer._save_optimizer_and_scheduler, Trainer.evaluate


def dying_save(self, output_dir):
    if self.state.global_step == WHEN:
        (Path(output_dir) / "optimizer.pt").write_bytes(b"\0" * 1000)
        os.kill(os.getpid(), signal.SIGKILL)
    save_optimizer(self, output_dir)


def signalled_evaluation(self, *args, **kwargs):
    if int(os.environ.get("RANK", "0")) == WHEN and not getattr(Trainer, "signalled", False):
        Trainer.signalled = True
        os.killpg(os.getpgid(0), signal.SIGTERM)
    return evaluate(self, *args, **kwargs)


if POINT == "kill-in-save":
    Trainer._save_optimizer_and_scheduler = dying_save
elif POINT == "term-in-evaluation":
    Trainer.evaluate = signalled_evaluation
else:
    raise SystemExit(f"unknown interruption {POINT!r}")
sys.argv[0] = str(REPO / "scripts/pretrain.py")
runpy.run_path(sys.argv[0], run_name="__main__")
