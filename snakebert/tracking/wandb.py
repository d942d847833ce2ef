"""Weights & Biases' history of a training job (trackers.py): transformers' W&B callback, reporting to one W&B run
per checkpoint fingerprint. Every segment of a run, and every rerun of the same settings, resumes that run (its id
is the fingerprint). Offline, the default, each trainer (a segment's phase) writes its own `wandb/offline-run-*`
folder under the run's folder in logs/tracking; `wandb sync` sends them, in order, into the one run. Online needs a
key in the environment and the network, both checked when the job starts."""

import netrc
import os
from urllib.parse import urlparse

from transformers.integrations import WandbCallback

from ..redaction import credential_parts
from .logged_steps import SkipsLoggedSteps
from .tracked_run import TrackedRun, flat_scalars, unreachable

DEFAULT_HOST = "https://api.wandb.ai"  # where W&B sends a run unless WANDB_BASE_URL says otherwise


def _netrc_has(host: str) -> bool:
    """Whether the netrc file `wandb login` writes holds credentials for `host`."""
    try:
        return netrc.netrc(os.environ.get("NETRC")).authenticators(host) is not None
    except (OSError, netrc.NetrcParseError):
        return False


def online_problem(mode: str) -> str | None:
    """Why a job cannot report to W&B online from here (no key, a WANDB_BASE_URL with credentials, which W&B would
    print in the job's log, or the host cannot be reached); None offline."""
    if mode != "online":
        return None
    hidden = " and ".join(credential_parts(os.environ.get("WANDB_BASE_URL", "")))
    if hidden:
        return (
            f"has tracking.wandb.mode: online and WANDB_BASE_URL holds {hidden} (not shown), which W&B would print "
            "in the job's log: set it to the server's URL alone, and the key in WANDB_API_KEY"
        )
    base = urlparse(os.environ.get("WANDB_BASE_URL", DEFAULT_HOST))
    if not os.environ.get("WANDB_API_KEY") and not _netrc_has(base.hostname):
        return (
            "has tracking.wandb.mode: online and no API key: set WANDB_API_KEY in the environment (never in the "
            "config) or run `wandb login`, or set tracking.wandb.mode: offline and send the run later with "
            "`wandb sync`"
        )
    reason = unreachable(base.geturl())
    if reason is None:
        return None
    return (
        f"has tracking.wandb.mode: online and {base.hostname} cannot be reached ({reason}): set "
        "tracking.wandb.mode: offline and send the run later with `wandb sync`"
    )


class WandbHistory(SkipsLoggedSteps, WandbCallback):
    """transformers' W&B callback, on the W&B run of `run` (created or resumed by its id), with the job's settings
    as the run's config; each segment's first step is marked (`segment/start`), as in TensorBoard's history."""

    def __init__(self, run: TrackedRun) -> None:
        super().__init__(run.folder, "wandb", run.identity)
        self.run = run

    def setup(self, args, state, model, **kwargs):
        if state.is_world_process_zero and self._wandb.run is None:
            self.run.folder.mkdir(parents=True, exist_ok=True)
            self._wandb.init(
                project=self.run.options["project"],
                id=self.run.identity,
                name=self.run.name,
                resume="allow",
                dir=str(self.run.folder),
                mode=self.run.options["wandb"]["mode"],
                config=flat_scalars(self.run.settings),
            )
        super().setup(args, state, model, **kwargs)

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        super().on_train_begin(args, state, control, model=model, **kwargs)
        if state.is_world_process_zero:
            first_step = state.global_step + 1
            self._wandb.log({"segment/start": first_step, "train/global_step": first_step})

    def on_train_end(self, args, state, control, **kwargs):
        super().on_train_end(args, state, control, **kwargs)
        if state.is_world_process_zero and self._wandb.run is not None:
            self._wandb.finish()  # each trainer (a phase, a segment) its own part of the run, as MLflow's callback

    def on_predict(self, args, state, control, metrics, **kwargs):
        """Nothing: a run's scores on its splits are the pipeline's results (results/finetune), not its curves, as in
        TensorBoard's and MLflow's histories."""
