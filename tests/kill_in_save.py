"""Run scripts/pretrain.py (the arguments after the step) and kill it with SIGKILL in the middle of the checkpoint
save at that step: after the model and half of the optimizer file are written, before the rest of the save. A test
harness for tests/workflow/test_stop_request.py, as a node that dies mid-save."""

import os
import runpy
import signal
import sys
from pathlib import Path

from transformers import Trainer

REPO = Path(__file__).resolve().parents[1]
STEP = int(sys.argv.pop(1))
save_optimizer = Trainer._save_optimizer_and_scheduler


def dying_save(self, output_dir):
    if self.state.global_step == STEP:
        (Path(output_dir) / "optimizer.pt").write_bytes(b"\0" * 1000)  # the first bytes of it
        os.kill(os.getpid(), signal.SIGKILL)
    save_optimizer(self, output_dir)


Trainer._save_optimizer_and_scheduler = dying_save
sys.argv[0] = str(REPO / "scripts/pretrain.py")
runpy.run_path(sys.argv[0], run_name="__main__")
