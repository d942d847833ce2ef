"""Real 2-process CPU runs (gloo) through the multi-node torchrun path: the command srun runs once per node,
started here twice with the environment SLURM gives each node of a 2-node job. Both "nodes" are this machine."""

import contextlib
import json
import re
import socket
import subprocess
import sys

import numpy as np
import pytest
from helpers import PHASE_BLOCK_SIZE, REPO, TINY_TRAINING, build_tiny_data, snakemake_env, wait_all
from torch.distributed import TCPStore

from snakebert.config_defaults import schema_defaults
from snakebert.data.manifest import read_manifest
from snakebert.files.settings_files import settings_file
from snakebert.launch.allocation import rendezvous_port
from snakebert.training.block_dataset import EpochSampler, split_indices


@contextlib.contextmanager
def held_rendezvous():
    """A SLURM job ID whose rendezvous port (allocation.rendezvous_port) this process binds and serves the c10d
    store on while the nodes run, so that no other process can take the port between its choice and its use. Each
    node's torchrun, finding the port taken, connects to the store there, as c10d's rendezvous does on a node that
    does not host it."""
    for job_id in range(1000):
        port = rendezvous_port({"SLURM_JOB_ID": str(job_id)})
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the store's own socket: TIME_WAIT is free
        try:
            listener.bind(("localhost", port))
            listener.listen()
        except OSError:
            listener.close()
            continue
        served = {"is_master": True, "multi_tenant": True, "wait_for_workers": False}
        store = TCPStore("localhost", port, master_listen_fd=listener.detach(), **served)  # it closes the socket
        try:
            yield job_id
        finally:
            del store
        return
    raise AssertionError("no free rendezvous port in 29500-30499")


def run_on_two_nodes(folder, script: str, data, settings: dict, *arguments: str) -> str:
    """scripts/`script` started as srun starts it on each node of a 2-node job (torch_spawn, one rank per node);
    both nodes' logs, after checking that both ended well and met in one rendezvous."""
    command = [
        sys.executable, str(REPO / "scripts/torch_spawn.py"), "--nodes", "2", "--nproc_per_node", "1",
        str(REPO / "scripts" / script), "--backend", "cpu", "--world-size", "2", "--manifest", str(data.manifest),
        "--tokenizer", str(data.tokenizer), "--model", settings_file(TINY_TRAINING["model"], folder),
        "--pretrain", settings_file(settings, folder), "--threads", "1", *arguments,
    ]  # fmt: skip
    with contextlib.ExitStack() as files:
        job = files.enter_context(held_rendezvous())
        nodes = []
        for node in (0, 1):
            slurm = {"SLURM_JOB_ID": str(job), "SLURM_JOB_NODELIST": "localhost,127.0.0.1", "SLURM_NODEID": str(node)}
            log = files.enter_context((folder / f"node-{node}.log").open("w"))
            environment = {**snakemake_env(), **slurm}
            nodes.append(subprocess.Popen(command, cwd=folder, env=environment, stdout=log, stderr=subprocess.STDOUT))
        wait_all(nodes, timeout=300)
    logs = [(folder / f"node-{node}.log").read_text() for node in (0, 1)]
    assert [process.returncode for process in nodes] == [0, 0], "\n".join(logs)
    assert "launching 2 ranks: torchrun --nnodes=2 --nproc_per_node=1 --rdzv_backend=c10d" in logs[0]
    return "\n".join(logs)


def test_two_nodes_train_disjoint_shares_of_each_batch_to_identical_weights(tmp_path):
    data = build_tiny_data(tmp_path)
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "max_steps": 6, "eval_steps": 6}
    text = run_on_two_nodes(tmp_path, "pretrain.py", data, settings, "--checkpoints", "checkpoints", "--out", "model")
    first = {int(rank): json.loads(blocks) for rank, blocks in
             re.findall(r"rank (\d) of 2: the first batch of epoch 0 reads train blocks (\[.*\])", text)}  # fmt: skip
    weights = {int(rank): digest for rank, digest in re.findall(r"rank (\d) of 2: trained weights sha256 (\w+)", text)}
    assert sorted(first) == sorted(weights) == [0, 1]
    # Each rank reads its own half of the first global batch, which is the first 2 x batch blocks of epoch 0's order
    manifest = read_manifest(str(data.manifest))
    train = split_indices(manifest, "train")
    order = [int(train[index]) for _, index in EpochSampler(len(train), manifest.shuffle_seed)]
    batch = settings["per_device_train_batch_size"]
    assert len(first[0]) == len(first[1]) == batch and not set(first[0]) & set(first[1])
    assert sorted(first[0] + first[1]) == sorted(order[: 2 * batch])
    assert weights[0] == weights[1]  # data parallel: every rank ends with the same weights
    metrics = json.loads((tmp_path / "model/training_metrics.json").read_text())
    assert (metrics["world_size"], metrics["global_batch_size"], metrics["steps"]) == (2, 2 * batch, 6)
    assert np.isfinite(metrics["final_loss"])
    [record] = (tmp_path / "checkpoints").glob("*/fingerprint.json")
    assert json.loads(record.read_text())["world_size"] == 2


def test_two_nodes_train_both_phases_with_disjoint_shares_to_identical_weights(tmp_path):
    data = build_tiny_data(tmp_path)
    phases = [
        {"block_size": PHASE_BLOCK_SIZE, "steps": 4, "per_device_train_batch_size": 8},
        {"block_size": 16, "steps": 2},
    ]
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "max_steps": 6, "eval_steps": 6}
    settings = {**settings, "phases": phases, "save_steps": 4}
    text = run_on_two_nodes(tmp_path, "pretrain.py", data, settings, "--checkpoints", "checkpoints", "--out", "model")
    for phase in (1, 2):
        first = re.findall(
            rf"rank (\d) of 2: the first batch of epoch 0 reads train blocks (\[.*\]) \(phase {phase}:", text
        )
        shares = {int(rank): set(json.loads(blocks)) for rank, blocks in first}
        assert sorted(shares) == [0, 1] and not shares[0] & shares[1], phase
    weights = {int(rank): digest for rank, digest in re.findall(r"rank (\d) of 2: trained weights sha256 (\w+)", text)}
    assert sorted(weights) == [0, 1] and weights[0] == weights[1]
    metrics = json.loads((tmp_path / "model/training_metrics.json").read_text())
    assert [(phase["block_size"], phase["global_batch_size"]) for phase in metrics["phases"]] == [(8, 16), (16, 16)]
    assert metrics["steps"] == 6


def test_a_calibration_on_two_nodes_times_the_two_rank_run_and_keeps_no_checkpoint(tmp_path):
    data = build_tiny_data(tmp_path)
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"]}
    burst = {"warmup_steps": 2, "steps": 4, "price_per_node_hour": 1.0}
    arguments = ("--checkpoints", "checkpoints", "--calibration", settings_file(burst, tmp_path), "--nodes", "2")
    run_on_two_nodes(tmp_path, "calibrate.py", data, settings, *arguments, "--out", "calibration.json")
    result = json.loads((tmp_path / "calibration.json").read_text())
    assert (result["world_size"], result["nodes"], result["global_batch_size"]) == (2, 2, 16)
    assert result["projected_node_hours"] == pytest.approx(2 * result["projected_wall_seconds"] / 3600)
    assert list((tmp_path / "checkpoints").glob("*")) == []
