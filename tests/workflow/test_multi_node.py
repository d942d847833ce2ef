"""A real 2-process CPU run (gloo) through the multi-node torchrun path: the command srun runs once per node,
started here twice with the environment SLURM gives each node of a 2-node job. Both "nodes" are this machine."""

import contextlib
import json
import re
import socket
import subprocess
import sys

import numpy as np
from helpers import REPO, TINY_TRAINING, build_tiny_data, snakemake_env

from snakebert.config_defaults import schema_defaults
from snakebert.data.manifest import read_manifest
from snakebert.training.blocks import EpochSampler, split_indices


def free_job_id() -> int:
    """A SLURM job ID whose rendezvous port (29500 + ID % 1000) is free here."""
    for job_id in range(1000):
        with socket.socket() as probe:
            if probe.connect_ex(("localhost", 29500 + job_id)) != 0:
                return job_id
    raise AssertionError("no free port in 29500-30499")


def test_two_nodes_train_disjoint_shares_of_each_batch_to_identical_weights(tmp_path):
    data = build_tiny_data(tmp_path)
    settings = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"], "max_steps": 6, "eval_steps": 6}
    job = free_job_id()
    command = [
        sys.executable, str(REPO / "scripts/torch_spawn.py"), "--nodes", "2", "--nproc_per_node", "1",
        str(REPO / "scripts/pretrain.py"), "--backend", "cpu", "--world-size", "2", "--manifest", str(data.manifest),
        "--tokenizer", str(data.tokenizer), "--model", json.dumps(TINY_TRAINING["model"]),
        "--settings", json.dumps(settings), "--checkpoints", "checkpoints", "--threads", "1", "--out", "model",
    ]  # fmt: skip
    with contextlib.ExitStack() as files:
        nodes = []
        for node in (0, 1):
            slurm = {"SLURM_JOB_ID": str(job), "SLURM_JOB_NODELIST": "localhost,127.0.0.1", "SLURM_NODEID": str(node)}
            log = files.enter_context((tmp_path / f"node-{node}.log").open("w"))
            environment = {**snakemake_env(), **slurm}
            nodes.append(subprocess.Popen(command, cwd=tmp_path, env=environment, stdout=log, stderr=subprocess.STDOUT))
        for process in nodes:
            process.wait(timeout=600)
    logs = [(tmp_path / f"node-{node}.log").read_text() for node in (0, 1)]
    assert [process.returncode for process in nodes] == [0, 0], "\n".join(logs)
    assert "launching 2 ranks: torchrun --nnodes=2 --nproc_per_node=1 --rdzv_backend=c10d" in logs[0]
    text = "\n".join(logs)
    first = {int(rank): json.loads(blocks) for rank, blocks in
             re.findall(r"rank (\d) of 2: the first batch of epoch 0 reads train blocks (\[.*\])", text)}  # fmt: skip
    weights = {int(rank): digest for rank, digest in re.findall(r"rank (\d) of 2: trained weights sha256 (\w+)", text)}
    assert sorted(first) == sorted(weights) == [0, 1]
    # Each rank reads its own half of the first global batch, which is the first 2 x batch blocks of epoch 0's order
    manifest = read_manifest(str(data.manifest))
    train = split_indices(manifest, "train")
    order = [int(train[index]) for _, index in EpochSampler(len(train), manifest["shuffle_seed"])]
    batch = settings["per_device_train_batch_size"]
    assert len(first[0]) == len(first[1]) == batch and not set(first[0]) & set(first[1])
    assert sorted(first[0] + first[1]) == sorted(order[: 2 * batch])
    assert weights[0] == weights[1]  # data parallel: every rank ends with the same weights
    metrics = json.loads((tmp_path / "model/training_metrics.json").read_text())
    assert (metrics["world_size"], metrics["global_batch_size"], metrics["steps"]) == (2, 2 * batch, 6)
    assert np.isfinite(metrics["final_loss"])
    [record] = (tmp_path / "checkpoints").glob("*/fingerprint.json")
    assert json.loads(record.read_text())["world_size"] == 2
