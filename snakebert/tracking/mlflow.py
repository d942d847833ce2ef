"""MLflow's history of a training job (trackers.py): transformers' MLflow callback, reporting to one MLflow run per
checkpoint fingerprint (found again by its tag), in the experiment `tracking.project`. Every segment of a run, and
every rerun of the same settings, continues that run; its parameters are the job's settings, the same in every
segment and phase (MLflow refuses a parameter whose value changes, which the trainer's own arguments do between
phases). A local tracking URI is MLflow's file store: one folder per run, so that concurrent jobs on a shared file
system each write their own."""

import os
from pathlib import Path
from urllib.parse import urlparse

from transformers.integrations import MLflowCallback

from ..redaction import credential_parts, redact
from .logged_steps import SkipsLoggedSteps
from .tracked_run import MLFLOW_SERVER_SCHEMES, TrackedRun, flat_scalars, unreachable

RUN_TAG = "snakebert_run"  # the tag that holds a run's identity, its checkpoint fingerprint
PARAMS_PER_CALL = 100  # MLflow's limit on parameters logged in one call


def store_uri(tracking_uri: str) -> str:
    """The URI MLflow is given: a server's as it is; a local folder's as an absolute file URI, which MLflow's file
    store takes only when asked (MLFLOW_ALLOW_FILE_STORE; its newer default is a database file, which concurrent
    jobs on a shared file system cannot share)."""
    if urlparse(tracking_uri).scheme in MLFLOW_SERVER_SCHEMES:
        return tracking_uri
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    path = urlparse(tracking_uri).path if tracking_uri.startswith("file:") else tracking_uri
    return Path(path).resolve().as_uri()


def server_problem(tracking_uri: str) -> str | None:
    """Why a job cannot report to the tracking server `tracking_uri`: it holds credentials (the config's are refused
    when the workflow is read; this is the job's own look, at a URI from its environment), which MLflow would print
    in the job's log, or it does not answer MLflow's health check; None for a local folder. The URI is quoted
    redacted."""
    if urlparse(tracking_uri).scheme not in MLFLOW_SERVER_SCHEMES:
        return None
    shown, hidden = redact(tracking_uri), " and ".join(credential_parts(tracking_uri))
    if hidden:
        return (
            f"has tracking.mlflow.tracking_uri {shown}, with {hidden}, which MLflow would print in the job's log: "
            "give the server's credentials in the environment (MLFLOW_TRACKING_TOKEN, or MLFLOW_TRACKING_USERNAME "
            "and MLFLOW_TRACKING_PASSWORD)"
        )
    reason = unreachable(f"{tracking_uri.rstrip('/')}/health")
    if reason is None:
        return None
    return (
        f"has tracking.mlflow.tracking_uri {shown}, which does not answer ({reason}): start the tracking "
        "server, or set a local folder (MLflow's file store)"
    )


def experiment_id(mlflow, name: str) -> str:
    """The id of experiment `name`, created if it does not exist, also when another job creates it meanwhile."""
    found = mlflow.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    try:
        return mlflow.create_experiment(name)
    except mlflow.exceptions.MlflowException:
        return mlflow.get_experiment_by_name(name).experiment_id


class MlflowHistory(SkipsLoggedSteps, MLflowCallback):
    """transformers' MLflow callback on the MLflow run of `run`: its metrics at each logging step, as the trainer
    logs them; each segment's first step marked (`segment/start`), as in TensorBoard's history."""

    def __init__(self, run: TrackedRun) -> None:
        super().__init__(run.folder, "mlflow", run.identity)
        self.run = run

    def setup(self, args, state, model):
        self._async_log = False  # each logging step on disk before the next: a killed job loses none it logged
        if state.is_world_process_zero:
            mlflow = self._ml_flow
            mlflow.set_tracking_uri(store_uri(self.run.options["mlflow"]["tracking_uri"]))
            experiment = experiment_id(mlflow, self.run.options["project"])
            if mlflow.active_run() is None:
                query = f"tags.{RUN_TAG} = '{self.run.identity}'"
                earlier = mlflow.search_runs([experiment], filter_string=query, output_format="list")
                if earlier:
                    mlflow.start_run(run_id=earlier[0].info.run_id)
                else:
                    tags = {RUN_TAG: self.run.identity}
                    mlflow.start_run(experiment_id=experiment, run_name=self.run.name, tags=tags)
                self._auto_end_run = True
            params = list(flat_scalars(self.run.settings).items())
            for start in range(0, len(params), PARAMS_PER_CALL):
                mlflow.log_params(dict(params[start : start + PARAMS_PER_CALL]))
        self._initialized = True

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        super().on_train_begin(args, state, control, model=model, **kwargs)
        if state.is_world_process_zero:
            self._ml_flow.log_metric("segment/start", state.global_step + 1, step=state.global_step + 1)
