"""The histories W&B (offline) and MLflow (a local file store) hold, read back: W&B's from the run files it writes
(its transaction log, the LevelDB log format, each record one of W&B's own protobuf messages), in the order its
segments wrote them, as `wandb sync` sends them; MLflow's through its own client."""

import json
import os
from pathlib import Path

from mlflow.tracking import MlflowClient
from wandb.proto.wandb_internal_pb2 import Record

BLOCK = 32768  # the LevelDB log's block size
HEADER = 7  # a chunk's header (checksum, length, type), and the W&B file's own (":W&B", magic, version)
FULL, LAST = 1, 4  # the chunk types that end a record


def _records(path: Path) -> list[bytes]:
    data, position, records, pending = path.read_bytes(), HEADER, [], b""
    while position + HEADER <= len(data):
        if BLOCK - position % BLOCK < HEADER:  # a block's tail too short for a header is padding
            position += BLOCK - position % BLOCK
            continue
        length, kind = int.from_bytes(data[position + 4 : position + 6], "little"), data[position + 6]
        pending += data[position + HEADER : position + HEADER + length]
        position += HEADER + length
        if kind in (FULL, LAST):
            records.append(pending)
            pending = b""
    return records


def wandb_runs(folder: Path) -> list[Path]:
    """The offline W&B run files under a run's history folder, one per segment, oldest first."""
    return sorted(folder.glob("wandb/offline-run-*/run-*.wandb"))


def _wandb_records(folder: Path, kind: str):
    """The records of type `kind` that the segments under `folder` wrote, in order."""
    for path in wandb_runs(folder):
        for data in _records(path):
            record = Record()
            record.ParseFromString(data)
            if record.WhichOneof("record_type") == kind:
                yield record


def wandb_history(folder: Path, key: str) -> list[tuple[int, float]]:
    """(train/global_step, value) of each point of `key` that the segments under `folder` logged, in order."""
    points = []
    for record in _wandb_records(folder, "history"):
        row = {item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in record.history.item}
        if key in row:
            points.append((row["train/global_step"], row[key]))
    return points


def wandb_run_ids(folder: Path) -> set[str]:
    """The W&B run id each segment under `folder` reported to."""
    return {record.run.run_id for record in _wandb_records(folder, "run")}


def _client(store: Path) -> MlflowClient:
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # the store the jobs write (snakebert/tracking/mlflow.py)
    return MlflowClient(store.resolve().as_uri())


def mlflow_runs(store: Path) -> list:
    """Every run of MLflow's file store `store`, in every experiment."""
    client = _client(store)
    return client.search_runs([experiment.experiment_id for experiment in client.search_experiments()])


def mlflow_history(store: Path, run_id: str, key: str) -> list[tuple[int, float]]:
    """(step, value) of each point of `key` in the run, in step order."""
    client = _client(store)
    return sorted((metric.step, metric.value) for metric in client.get_metric_history(run_id, key))
