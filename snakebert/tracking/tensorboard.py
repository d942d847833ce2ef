"""TensorBoard's history of a training job (trackers.py): transformers' TensorBoard callback, one segment at a time.

A run resumed from a checkpoint, or started again in the same folder, continues one history: the segment's writer
purges every event the folder holds from the segment's first step on (TensorBoard's `purge_step`), so a step that
an earlier segment logged after its last checkpoint appears once, as this segment logs it. Each segment marks its
first step (the scalar `segment/start`) and records the job's settings as its hyperparameters.
"""

from pathlib import Path

from transformers.integrations import TensorBoardCallback

from .tracked_run import flat_scalars


class SegmentHistory(TensorBoardCallback):
    """transformers' TensorBoard callback writing into `folder`, one segment of a run: its writer purges what the
    folder holds from the segment's first step (the trainer's step when training begins, resumed or not, plus 1)."""

    def __init__(self, folder: Path, settings: dict) -> None:
        super().__init__()
        self.logging_dir = str(folder)
        self.settings = settings
        self.first_step = 1

    def _init_summary_writer(self, args, log_dir=None):  # transformers 4.51 passes a log_dir: the folder is ours
        self.tb_writer = self._SummaryWriter(log_dir=self.logging_dir, purge_step=self.first_step)

    def on_train_begin(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        self.first_step = state.global_step + 1
        super().on_train_begin(args, state, control, **kwargs)
        from torch.utils.tensorboard.summary import hparams

        for summary in hparams(flat_scalars(self.settings), {}):
            self.tb_writer.file_writer.add_summary(summary, self.first_step)
        self.tb_writer.add_scalar("segment/start", self.first_step, self.first_step)
        self.tb_writer.flush()
