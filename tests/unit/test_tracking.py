"""A run's live history (the `tracking` section): TensorBoard's event files, read back with TensorBoard's own
EventAccumulator, hold what log_history.json holds, step for step, and a resumed run continues one history."""

import argparse
import dataclasses
import http.server
import json
import shutil
import tempfile
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import TINY_TRAINING
from tensorboard_history import events, scalars
from tracker_histories import mlflow_history, mlflow_runs, wandb_history, wandb_run_ids, wandb_runs

from snakebert.config_checks import tracking_problems
from snakebert.config_defaults import schema_defaults
from snakebert.errors import DataError, run_cli
from snakebert.files.settings_files import settings_file
from snakebert.files.tracking_settings import read_tracking_settings, write_tracking_settings
from snakebert.job_arguments import add_arguments
from snakebert.tracking.logged_steps import SkipsLoggedSteps
from snakebert.tracking.tracked_run import TrackedRun, flat_scalars
from snakebert.training.job import TrainingJob, job_from
from snakebert.training.pretrain import pretrain

# each history key of a training log entry: its TensorBoard tag (transformers' rewrite_logs: train/ or eval/)
TAGS = {"loss": "train/loss", "learning_rate": "train/learning_rate", "grad_norm": "train/grad_norm",
        "samples_per_second": "train/samples_per_second", "tokens_per_second": "train/tokens_per_second",
        "phase": "train/phase", "block_size": "train/block_size", "eval_loss": "eval/loss"}  # fmt: skip


def logged(history: list[dict], key: str) -> list[tuple[int, float]]:
    return [(entry["step"], entry[key]) for entry in history if key in entry]


@pytest.fixture
def tracked_job(tiny_data, tmp_path, monkeypatch):
    """Six steps of the tiny model, logged and checkpointed at every step, with TensorBoard under tmp/logs."""
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "max_steps": 6, "save_steps": 1,
                "logging_steps": 1, "eval_steps": 3, "warmup_steps": 1, "save_total_limit": 6}  # fmt: skip
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.chdir(tmp_path)
    return TrainingJob(str(tiny_data.manifest), str(tiny_data.tokenizer), TINY_TRAINING["model"], settings,
                       backend="cpu", checkpoints=str(tmp_path / "checkpoints"), threads=1, trackers=("tensorboard",),
                       tracking_dir=str(tmp_path / "logs"))  # fmt: skip


def test_a_resumed_run_continues_one_history_equal_to_its_log_history(tracked_job, tmp_path):
    """The first run logs steps 1 to 6; with its checkpoints after step 2 gone (a run killed after logging step 6
    but saving only step 2), the rerun resumes from step 2 and logs steps 3 to 6 again: the folder's history holds
    each step once, as the resumed run's log_history.json has it, with each segment's start marked."""
    pretrain(tracked_job, str(tmp_path / "model"))
    [run] = [path for path in (tmp_path / "checkpoints").iterdir() if path.is_dir()]
    history_folder = tmp_path / "logs" / run.name  # one history per checkpoint fingerprint
    assert [event.step for event in events(history_folder).Scalars("train/loss")] == [1, 2, 3, 4, 5, 6]
    for step in range(3, 7):
        shutil.rmtree(run / f"checkpoint-{step}")
    resumed = pretrain(tracked_job, str(tmp_path / "resumed"))
    assert resumed.resumed_from == str(run / "checkpoint-2")
    history = json.loads((tmp_path / "resumed/log_history.json").read_text())
    accumulator = events(history_folder)
    for key, tag in TAGS.items():
        assert [step for step, _ in scalars(accumulator, tag)] == [step for step, _ in logged(history, key)], tag
        assert [value for _, value in scalars(accumulator, tag)] == pytest.approx(
            [value for _, value in logged(history, key)], rel=1e-6
        ), tag
    assert [step for step, _ in logged(history, "eval_loss")] == [3, 6]
    assert all(value > 0 for _, value in logged(history, "tokens_per_second"))
    assert logged(history, "block_size") == [(step, 16) for step in range(1, 7)]
    assert scalars(accumulator, "segment/start") == [(1, 1), (3, 3)]
    assert resumed.history == "runs"  # the model folder's copy of the history, which the Hub upload sends
    copied = events(tmp_path / "resumed/runs")
    assert scalars(copied, "train/loss") == scalars(accumulator, "train/loss")


def test_the_settings_are_the_histories_hyperparameters_and_no_tracker_writes_nothing(tracked_job, tmp_path):
    pretrain(tracked_job, str(tmp_path / "model"))
    [folder] = (tmp_path / "logs").iterdir()
    plugins = events(folder).PluginTagToContent("hparams")
    session = plugins["_hparams_/session_start_info"]
    assert b"pretrain.learning_rate" in session and b"model.hidden_size" in session
    shutil.rmtree(tmp_path / "checkpoints")
    shutil.rmtree(tmp_path / "logs")
    untracked = dataclasses.replace(tracked_job, trackers=())
    assert pretrain(untracked, str(tmp_path / "untracked")).history is None
    assert not (tmp_path / "logs").exists() and not (tmp_path / "untracked/runs").exists()


def test_nested_settings_become_flat_scalar_hyperparameters():
    flat = flat_scalars({"pretrain": {"learning_rate": 1e-3, "phases": [{"block_size": 8}], "seed": 42},
                         "model": {"init_from": None, "architecture": "bert"}})  # fmt: skip
    assert flat == {"pretrain.learning_rate": 1e-3, "pretrain.phases": '[{"block_size": 8}]', "pretrain.seed": 42,
                    "model.init_from": "null", "model.architecture": "bert"}  # fmt: skip


def parsed_job(file: str | None, folder: str | None = "logs/tracking/pretrain") -> TrainingJob:
    """The job a training script parses from the tracking settings `file` (`--tracking`) and the history folder
    `folder` (`--tracking-dir`), beside the flags every job is given."""
    parser = argparse.ArgumentParser()
    add_arguments(parser, TrainingJob)
    empty = settings_file({}, Path(tempfile.gettempdir()))  # named by its content: the same file for every test
    given = ["--manifest", "m", "--tokenizer", "t", "--model", empty, "--pretrain", empty, "--backend", "cpu",
             "--checkpoints", "c"]  # fmt: skip
    given += ["--tracking", file] if file else []
    return job_from(parser.parse_args(given + (["--tracking-dir", folder] if folder else [])))


def job_trackers(file: str | None, folder: str | None = "logs/tracking/pretrain") -> tuple[str, ...]:
    return parsed_job(file, folder).trackers


def tracking_file(folder: Path, section: dict) -> str:
    """The tracking settings file that the workflow writes for `section`, written in `folder`."""
    return write_tracking_settings(section, str(folder / "tracking.json"))


def test_the_jobs_take_the_trackers_of_the_file_the_workflow_writes(tmp_path):
    assert job_trackers(None) == ()  # a job started outside the workflow keeps no history
    section = {**schema_defaults("tracking"), "trackers": ["tensorboard"]}
    file = tracking_file(tmp_path, section)
    assert job_trackers(file) == ("tensorboard",)
    assert job_trackers(file, None) == ()  # a job that keeps no history (calibrate's bursts)
    assert parsed_job(file, None).tracking == section


def test_the_tracking_file_is_rewritten_only_when_the_section_changes_and_a_foreign_one_is_refused(tmp_path):
    """The file is an input the rules declare ancient, at one path: the section, not its time, is what it holds."""
    section = {**schema_defaults("tracking"), "trackers": ["tensorboard"]}
    file = Path(tracking_file(tmp_path, section))
    written = (file.stat().st_ino, file.stat().st_mtime_ns)
    assert tracking_file(tmp_path, section) == str(file) and (file.stat().st_ino, file.stat().st_mtime_ns) == written
    assert read_tracking_settings(tracking_file(tmp_path, {**section, "trackers": []}))["trackers"] == []
    file.write_text(json.dumps({"trackers": "tensorboard"}))
    with pytest.raises(DataError, match=r"tracking.json: the tracking settings file's 'trackers' is not a list"):
        read_tracking_settings(str(file))
    with pytest.raises(DataError, match=r"missing.json: no such tracking settings file; the workflow writes it"):
        read_tracking_settings(str(tmp_path / "missing.json"))


@pytest.mark.parametrize(
    "folder, prefix, name",
    [
        ("logs/tracking/pretrain/ab12", None, "pretrain/ab12"),
        ("logs/tracking/finetune/tracking/tracking/chosen/seed-1", None, "finetune/tracking/tracking/chosen/seed-1"),
        ("logs/tracking/finetune/party/base/chosen/seed-2", "week-3", "week-3/finetune/party/base/chosen/seed-2"),
    ],
)
def test_a_runs_name_is_its_folder_under_logs_tracking_whatever_its_task_and_model_are_named(folder, prefix, name):
    run = TrackedRun(Path(folder), "ab12", {}, {**schema_defaults("tracking"), "run_name": prefix})
    assert run.name == name


def tracking(*trackers: str, uri: str = "logs/tracking/mlflow", mode: str = "offline") -> dict:
    return {**schema_defaults("tracking"), "trackers": list(trackers), "wandb": {"mode": mode},
            "mlflow": {"tracking_uri": uri}}  # fmt: skip


def test_a_tracker_that_is_not_installed_is_refused_with_what_to_install(monkeypatch):
    assert tracking_problems(tracking("tensorboard", "wandb", "mlflow")) == []
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert tracking_problems(tracking("tensorboard", "wandb")) == [
        "config tracking.trackers: 'tensorboard' is not installed (pip install tensorboard)",
        "config tracking.trackers: 'wandb' is not installed (pip install wandb)",
    ]


@pytest.mark.parametrize(
    "uri", ["logs/tracking/mlflow", "/srv/mlruns", "file:///srv/mlruns", "https://mlflow.lab:5000"]
)
def test_an_mlflow_tracking_uri_is_a_local_folder_or_a_servers_url(uri):
    assert tracking_problems(tracking("mlflow", uri=uri)) == []


@pytest.mark.parametrize(
    ("uri", "says"),
    [
        ("s3://bucket/runs", "a 's3' URI is neither a local folder nor the http(s) URL of a tracking server"),
        ("sqlite:///mlflow.db", "a 'sqlite' URI is neither a local folder nor the http(s) URL"),
        ("databricks", None),  # a bare word is a local folder's name
    ],
)
def test_an_mlflow_tracking_uri_that_is_neither_is_refused(uri, says):
    """(One with credentials is the validation's refusal, of any URL: tests/unit/test_config_validation.py.)"""
    problems = tracking_problems(tracking("mlflow", uri=uri))
    if says is None:
        assert problems == []
        return
    [problem] = problems
    assert problem.startswith("config tracking.mlflow.tracking_uri: ") and says in problem
    assert tracking_problems(tracking("tensorboard", uri=uri)) == []  # the URI of a tracker not asked for


def test_wandb_online_with_no_key_or_no_network_is_refused_when_the_job_starts(monkeypatch, tmp_path):
    (tmp_path / "netrc").write_text("")
    monkeypatch.setenv("NETRC", str(tmp_path / "netrc"))
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    file = tracking_file(tmp_path, tracking("wandb", mode="online"))
    with pytest.raises(DataError, match=r"'wandb' has tracking.wandb.mode: online and no API key: set WANDB_API_KEY"):
        job_trackers(file)
    monkeypatch.setenv("WANDB_API_KEY", "a-key")
    monkeypatch.setenv("WANDB_BASE_URL", "http://127.0.0.1:9")  # the discard port: nothing listens
    with pytest.raises(DataError, match=r"online and 127.0.0.1 cannot be reached .*: set tracking.wandb.mode: offline"):
        job_trackers(file)
    server = http.server.HTTPServer(("127.0.0.1", 0), Health)  # a host that answers, whatever it answers
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("WANDB_BASE_URL", f"http://127.0.0.1:{server.server_port}")
        assert job_trackers(file) == ("wandb",)  # online, with a key and a route
    finally:
        server.shutdown()
    monkeypatch.delenv("WANDB_API_KEY")
    file = tracking_file(tmp_path, tracking("wandb", mode="offline"))
    assert job_trackers(file) == ("wandb",)  # offline needs neither


class Sent:
    """A tracker callback that records the steps it is given."""

    def __init__(self):
        self.steps = []

    def on_train_begin(self, args, state, control, **kwargs):
        pass

    def on_log(self, args, state, control, **kwargs):
        self.steps.append(state.global_step)


class SkippingSent(SkipsLoggedSteps, Sent):
    pass


def segment(folder, identity, steps, rank_zero=True) -> list[int]:
    """What a tracker is sent by a segment of run `identity` that logs `steps`, reporting into `folder`."""
    callback = SkippingSent(folder, "tracker", identity)
    callback.on_train_begin(None, SimpleNamespace(global_step=steps[0] - 1, is_world_process_zero=rank_zero), None)
    for step in steps:
        callback.on_log(None, SimpleNamespace(global_step=step, is_world_process_zero=rank_zero), None, logs={})
    return callback.steps


def test_a_segment_skips_the_steps_its_run_sent_before_and_runs_sharing_a_folder_do_not_meet(tmp_path):
    """A fine-tuning run's folder is its task, model, rate and seed: runs of other settings (another fingerprint)
    report into it too, and each is sent all of its own steps."""
    assert segment(tmp_path, "run-a", [1, 2, 3, 4]) == [1, 2, 3, 4]
    assert segment(tmp_path, "run-a", [3, 4, 5, 6]) == [5, 6]  # resumed from step 2 after a kill at step 4
    assert segment(tmp_path, "run-b", [1, 2, 3]) == [1, 2, 3]  # other settings, the same folder
    assert segment(tmp_path, "run-a", [7, 8], rank_zero=False) == [7, 8] and segment(tmp_path, "run-a", [7]) == [7]


class Health(http.server.BaseHTTPRequestHandler):
    """A tracking server's health check answering with the class's status."""

    status = 200

    def do_GET(self):
        self.send_response(self.status if self.path == "/health" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("status", [200, 401])  # a server that asks for credentials answers too
def test_an_mlflow_server_that_does_not_answer_is_refused_when_the_job_starts(tmp_path, status):
    file = tracking_file(tmp_path, tracking("mlflow", uri="http://127.0.0.1:9"))
    with pytest.raises(DataError, match=r"'mlflow' has tracking.mlflow.tracking_uri http://127.0.0.1:9, which does "
                       r"not answer \(.*\): start the tracking server, or set a local folder"):  # fmt: skip
        job_trackers(file)
    server = http.server.HTTPServer(("127.0.0.1", 0), type("Answer", (Health,), {"status": status}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        file = tracking_file(tmp_path, tracking("mlflow", uri=f"http://127.0.0.1:{server.server_port}/"))
        assert job_trackers(file) == ("mlflow",)
    finally:
        server.shutdown()


URL_SECRET = "urlTokenCanary42"  # not a Hub token's shape: only a URL's redaction hides it


@pytest.mark.parametrize("uri", [f"http://{URL_SECRET}@127.0.0.1:9/", f"http://127.0.0.1:9/?token={URL_SECRET}"])
def test_an_mlflow_uri_with_credentials_in_a_jobs_tracking_file_is_refused_and_printed_nowhere(tmp_path, capsys, uri):
    """The config's are refused when the workflow is read; a job given one in its tracking settings file (written
    by hand) refuses it before MLflow could print it in the job's log, and what the job prints there (the guard's
    line) holds no secret."""
    file = tracking_file(tmp_path, tracking("mlflow", uri=uri))
    with pytest.raises(SystemExit):
        run_cli(lambda: job_trackers(file))
    printed = capsys.readouterr().err
    assert printed.startswith("error: config tracking.trackers: 'mlflow' has tracking.mlflow.tracking_uri http://")
    assert "which MLflow would print in the job's log" in printed and "MLFLOW_TRACKING_TOKEN" in printed
    assert URL_SECRET not in printed


def test_wandb_online_with_credentials_in_its_base_url_is_refused_without_them(monkeypatch, tmp_path):
    monkeypatch.setenv("WANDB_API_KEY", "a-key")
    monkeypatch.setenv("WANDB_BASE_URL", f"https://{URL_SECRET}@wandb.lab/?key={URL_SECRET}")
    file = tracking_file(tmp_path, tracking("wandb", mode="online"))
    with pytest.raises(DataError) as refused:
        job_trackers(file)
    assert "WANDB_BASE_URL holds user information and a query (not shown)" in str(refused.value)
    assert URL_SECRET not in str(refused.value)


CANARY = "hf_trackerCanary0123456789abcdefghij"  # a secret in the environment, which no file the run writes may hold
RATES = {"samples_per_second", "tokens_per_second"}  # seconds-based: a resumed segment measures them anew


def test_wandb_offline_and_mlflow_hold_the_log_history_once_across_a_killed_and_resumed_run(
    tracked_job, tmp_path, monkeypatch
):
    """The killed-and-resumed run of the TensorBoard test, reported to W&B (offline) and MLflow (a file store) too:
    each holds one run, identified by the checkpoint fingerprint, with every step of log_history.json once (the
    resumed segment's repeated steps 3 to 6 skipped, as resume is bit-identical), and no file holds a secret of the
    environment."""
    store = tmp_path / "logs/mlflow"
    file = tracking_file(tmp_path, tracking("tensorboard", "wandb", "mlflow", uri=str(store)))
    monkeypatch.setenv("WANDB_API_KEY", CANARY)
    monkeypatch.setenv("MLFLOW_TRACKING_TOKEN", CANARY)
    job = dataclasses.replace(
        tracked_job, trackers=("tensorboard", "wandb", "mlflow"), tracking=read_tracking_settings(file)
    )
    pretrain(job, str(tmp_path / "model"))
    [run] = [path for path in (tmp_path / "checkpoints").iterdir() if path.is_dir()]
    for step in range(3, 7):
        shutil.rmtree(run / f"checkpoint-{step}")
    assert pretrain(job, str(tmp_path / "resumed")).resumed_from == str(run / "checkpoint-2")
    history = json.loads((tmp_path / "resumed/log_history.json").read_text())
    folder = tmp_path / "logs" / run.name
    assert len(wandb_runs(folder)) == 2 and wandb_run_ids(folder) == {run.name}  # two segments, one W&B run
    [mlflow_run] = mlflow_runs(store)
    assert mlflow_run.data.tags["snakebert_run"] == run.name and mlflow_run.info.run_name == run.name
    assert mlflow_run.data.params["pretrain.max_steps"] == "6" and mlflow_run.data.params["model.hidden_size"] == "32"
    for key, tag in TAGS.items():
        expected = logged(history, key)
        for points in (wandb_history(folder, tag), mlflow_history(store, mlflow_run.info.run_id, key)):
            assert [step for step, _ in points] == [step for step, _ in expected], (key, points)
            if key not in RATES:
                assert [value for _, value in points] == pytest.approx([value for _, value in expected], rel=1e-6)
    assert wandb_history(folder, "segment/start") == [(1, 1), (3, 3)]
    assert mlflow_history(store, mlflow_run.info.run_id, "segment/start") == [(1, 1), (3, 3)]
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert any(path.suffix == ".wandb" for path in written) and any("mlflow" in path.parts for path in written)
    assert [path for path in written if CANARY.encode() in path.read_bytes()] == []
