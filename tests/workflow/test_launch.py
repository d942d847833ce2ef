"""How pretraining is launched, read from dry runs: the world size comes from the rule's resources."""

import re

from helpers import REPO, snakemake, training_config


def pretrain_command(workdir, *args: str, config: dict) -> str:
    done = snakemake(workdir, "results/model", "-n", "-p", *args, config=config)
    commands = [line for line in done.stdout.splitlines() if "scripts/pretrain.py" in line]
    assert len(commands) == 1, done.stdout
    return commands[0]


def test_cpu_by_default(workdir):
    command = pretrain_command(workdir, config=training_config(workdir))
    assert re.search(r"^Shell command: python \S*scripts/pretrain.py --backend cpu ", command)
    assert "--checkpoints checkpoints/pretrain" in command


def test_hpus_launch_gaudi_spawn_over_mpi_and_resources_cap_the_world_size(workdir):
    config = training_config(workdir)
    command = pretrain_command(workdir, "--set-resources", "pretrain:hpu=8", config=config)
    assert re.search(r"gaudi_spawn.py --world_size 8 --use_mpi \S*scripts/pretrain.py --backend hpu ", command)
    command = pretrain_command(workdir, "--set-resources", "pretrain:hpu=8", "--resources", "hpu=4", config=config)
    assert "gaudi_spawn.py --world_size 4 --use_mpi" in command


def test_gpus_launch_torchrun(workdir):
    config = training_config(workdir)
    command = pretrain_command(workdir, "--set-resources", "pretrain:gpu=4", config=config)
    assert re.search(
        r"python \S*scripts/torch_spawn.py --nproc_per_node 4 \S*scripts/pretrain.py --backend cuda ", command
    )
    command = pretrain_command(workdir, "--set-resources", "pretrain:gpu=1", config=config)
    assert re.search(r"Shell command: python \S*scripts/pretrain.py --backend cuda ", command)


def test_an_explicit_backend_wins(workdir):
    config = training_config(workdir, pretrain={"backend": "hpu"})
    assert "gaudi_spawn.py --world_size 1 --use_mpi" in pretrain_command(workdir, config=config)


def test_local_gpu_profile_trains_on_cuda(workdir):
    config = training_config(workdir)
    profile = ("--workflow-profile", str(REPO / "profiles/local-gpu"))
    assert re.search(
        r"python \S*scripts/pretrain.py --backend cuda ", pretrain_command(workdir, *profile, config=config)
    )


def test_gaudi_config_is_an_input_of_pretrain(workdir):
    (workdir / "corpus").mkdir()
    (workdir / "corpus" / "a.txt").write_text("a document long enough to keep. " * 20)
    config = {"sources": [{"name": "a", "type": "files", "paths": ["corpus/*.txt"], "format": "text"}]}
    done = snakemake(workdir, "-n", "results/model", config=config)
    job = done.stdout.split("rule pretrain:", 1)[1].split("\n\n", 1)[0]
    inputs = job.split("input:", 1)[1].splitlines()[0]
    assert str((REPO / "config" / "gaudi_config.json").resolve().relative_to(REPO)) in inputs
