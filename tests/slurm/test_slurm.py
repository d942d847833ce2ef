"""The SLURM profiles against a real SLURM cluster: the single-node one `bash tests/slurm/cluster.sh start` runs.

The profiles' SITE values (account, partitions) are replaced by the test cluster's in a copy of the profile, and
the requests no 2-CPU node can meet (8 tokenizer threads, a DL1 node's CPUs and memory) are fitted to its node;
everything else in the profile reaches sbatch as written.
"""

import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml
from helpers import (
    CORES,
    REPO,
    printed_settings,
    snakemake,
    snakemake_env,
    training_config,
    two_source_config,
    write_config,
)
from shared_builds import copy_build

ACCOUNT = "snakebert-ci"  # created by tests/slurm/cluster.sh
PARTITIONS = {"cpu": "cpu", "dl1": "dl1", "gpu": "gpu"}  # the profile's partition (by role) -> the test cluster's
SHARDS = {"texts_shard-00000", "texts_shard-00001", "texts_shard-00002", "notes_shard-00000"}
DATA_JOBS = {
    "ingest_shard": 4,
    "find_duplicates": 1,
    "train_tokenizer": 1,
    "tokenize_shard": 4,
    "pack_shard": 4,
    "build_manifest": 1,
}
# Check job states every 2 s (the plugin's default: 40 s); it adds 10 s after each check that finds no job finished.
QUICK_STATUS = ("--slurm-init-seconds-before-status-checks", "2")
START_CLUSTER = "start it with `bash tests/slurm/cluster.sh start` (as root; it apt-get installs SLURM on first use)"
REQUIRED = os.environ.get("SNAKEBERT_REQUIRE_SLURM") == "1"  # set by .ci/run, which starts the cluster


def no_cluster(reason: str):
    """Without the test cluster: skipped, with the reason, unless the run requires it (.ci/run): then a failure."""
    if REQUIRED:
        pytest.fail(f"{reason}; {START_CLUSTER}")
    pytest.skip(f"{reason}; {START_CLUSTER}")


@dataclass
class Cluster:
    cpus: int
    memory_mb: int


def run(*command: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        no_cluster(f"`{command[0]}` is not installed: no SLURM cluster here")


@pytest.fixture(scope="module")
def cluster() -> Cluster:
    """The running test cluster, found with sinfo; without it the tests are skipped, or fail under .ci/run."""
    done = run("sinfo", "--noheader", "--format=%R|%c|%m|%t")
    rows = [line.split("|") for line in done.stdout.split()]
    ready = {row[0]: row for row in rows if len(row) == 4 and row[3] in ("idle", "mix", "alloc")}
    if done.returncode != 0 or set(PARTITIONS.values()) - set(ready):
        no_cluster(
            f"no SLURM cluster with idle partitions {sorted(PARTITIONS.values())} answers "
            f"(sinfo: {(done.stdout + done.stderr).strip() or done.returncode})"
        )
    accounts = run("sacctmgr", "--noheader", "--parsable2", "list", "association", "format=account").stdout.split()
    if ACCOUNT not in accounts:
        pytest.fail(f"the SLURM cluster here has no account {ACCOUNT!r}: is it the one tests/slurm/cluster.sh starts?")
    node = ready[PARTITIONS["cpu"]]
    return Cluster(cpus=int(node[1].rstrip("+")), memory_mb=int(node[2].rstrip("+")))


def fitted_profile(name: str, folder: Path, cluster: Cluster, account: str | None = ACCOUNT) -> Path:
    """A copy of profiles/`name` with the test cluster's account (None: the profile's) and partitions, its requests
    fitted to the node."""
    profile = yaml.safe_load((REPO / "profiles" / name / "config.yaml").read_text())
    defaults = profile["default-resources"]
    if account is not None:
        defaults["slurm_account"] = repr(account)
    for resources in [defaults, *profile.get("set-resources", {}).values()]:
        if "slurm_partition" in resources:  # the profiles' placeholders are named for their roles
            resources["slurm_partition"] = repr(PARTITIONS[resources["slurm_partition"].strip("'")])
        if "mem_mb" in resources:
            resources["mem_mb"] = min(resources["mem_mb"], cluster.memory_mb)
        if "tasks_per_node" in resources:  # a task per GPU: as many as the node has CPUs, a CPU each
            resources["tasks_per_node"] = cluster.cpus
            resources["cpus_per_task"] = 1
        if "cpus_per_task" in resources:
            resources["cpus_per_task"] = min(resources["cpus_per_task"], cluster.cpus)
    profile["max-threads"] = cluster.cpus  # sbatch --cpus-per-task comes from threads
    profile["set-threads"] = {rule: min(cluster.cpus, CORES) for rule in ("pretrain", "calibrate")}  # as local runs
    path = folder / name / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump(profile, sort_keys=False))
    return path.parent


def slurm_jobs(run_id: str, since: datetime) -> list[dict]:
    """The SLURM jobs of one snakemake run (their name is its run ID), from the accounting database."""
    fields = ["JobID", "Comment", "Partition", "Account", "State", "AllocCPUS", "ReqMem", "AllocTRES"]
    done = run(
        "sacct", "--allocations", "--parsable2", "--noheader", f"--name={run_id}",
        f"--starttime={since:%Y-%m-%dT%H:%M:%S}", f"--format={','.join(fields)}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    jobs = []
    for line in done.stdout.splitlines():
        job = dict(zip(fields, line.split("|"), strict=True))
        # the plugin's comment: rule_<rule>[_wildcards_<wildcard values joined by _>]
        rule, _, wildcards = job["Comment"].removeprefix("rule_").partition("_wildcards_")
        jobs.append({**job, "rule": rule, "wildcards": wildcards})
    return jobs


def planned_resources(dry_run_output: str) -> list[tuple[str, dict[str, str]]]:
    """(rule, resources) of every job a dry run lists."""
    jobs = []
    for line in dry_run_output.splitlines():
        if rule := re.fullmatch(r"(?:local)?rule (\w+):", line):
            jobs.append((rule.group(1), {}))
        elif resources := re.fullmatch(r"\s+resources: (.*)", line):
            jobs[-1][1].update(item.split("=", 1) for item in resources.group(1).split(", "))
    return jobs


def test_data_half_runs_as_slurm_jobs_one_per_shard(workdir, tmp_path, cluster):
    since = datetime.now() - timedelta(minutes=1)
    profile = fitted_profile("slurm-cpu", tmp_path / "profiles", cluster)
    done = snakemake(
        workdir,
        "--workflow-profile", str(profile),
        *QUICK_STATUS,
        "--cores", str(cluster.cpus),  # the submitting process's cores bound the jobs' threads: the node's, here
        "results/dataset/manifest.json",
        config=two_source_config(workdir),
    )  # fmt: skip
    run_id = re.search(r"SLURM run ID: (\S+)", done.stdout + done.stderr).group(1)
    jobs = slurm_jobs(run_id, since)
    assert Counter(job["rule"] for job in jobs) == DATA_JOBS
    for rule in ("ingest_shard", "tokenize_shard"):
        assert sorted(job["wildcards"] for job in jobs if job["rule"] == rule) == sorted(SHARDS)
    packed = sorted(job["wildcards"] for job in jobs if job["rule"] == "pack_shard")
    assert packed == sorted(f"blocks_{shard}" for shard in SHARDS)  # the packing folder, then source and shard
    assert {(job["Partition"], job["Account"], job["State"]) for job in jobs} == {("cpu", ACCOUNT, "COMPLETED")}
    # the profile's memory and the rules' threads reached sbatch
    assert {job["ReqMem"] for job in jobs if job["rule"] not in ("train_tokenizer", "find_duplicates")} == {"4000M"}
    [duplicates] = [job["ReqMem"] for job in jobs if job["rule"] == "find_duplicates"]
    assert duplicates == f"{min(32000, cluster.memory_mb)}M"  # near-dedup's clustering (the profile says why)
    assert [(job["ReqMem"], job["AllocCPUS"]) for job in jobs if job["rule"] == "train_tokenizer"] == [
        (f"{min(16000, cluster.memory_mb)}M", str(min(8, cluster.cpus)))
    ]
    manifest = json.loads((workdir / "results/dataset/manifest.json").read_text())
    assert [shard["source"] for shard in manifest["shards"]] == ["texts"] * 3 + ["notes"]
    assert manifest["totals"]["docs"] == 12


def test_an_account_left_as_the_placeholder_fails_before_any_job_is_submitted(workdir, tmp_path, cluster):
    since = datetime.now() - timedelta(minutes=1)
    profile = fitted_profile("slurm-cpu", tmp_path / "profiles", cluster, account=None)
    done = snakemake(
        workdir,
        "--workflow-profile", str(profile),
        *QUICK_STATUS,
        config=two_source_config(workdir),
        check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "The given account CHANGE_ME appears to be invalid" in output
    assert slurm_jobs(re.search(r"SLURM run ID: (\S+)", output).group(1), since) == []


def pretrain_job(profile_name: str, data_half, workdir, tmp_path, cluster) -> tuple[dict, str]:
    """A 10-step pretrain (cpu backend: nothing computes on the test cluster's HPUs or GPUs) as the one SLURM job of
    a run through profiles/`profile_name`, on a copy of the shared data set: its sacct record and the training log."""
    config = training_config(copy_build(data_half, workdir), pretrain={"backend": "cpu", "max_steps": 10})
    since = datetime.now() - timedelta(minutes=1)
    profile = fitted_profile(profile_name, tmp_path / "profiles", cluster)
    done = snakemake(workdir, "results/model", "--workflow-profile", str(profile), *QUICK_STATUS, config=config)
    [job] = slurm_jobs(re.search(r"SLURM run ID: (\S+)", done.stdout + done.stderr).group(1), since)
    assert (job["rule"], job["State"]) == ("pretrain", "COMPLETED")
    assert json.loads((workdir / "results/model/training_metrics.json").read_text())["steps"] == 10
    return job, (workdir / "logs/pretrain.log").read_text()


def test_pretrain_runs_on_a_whole_dl1_node_with_its_hpus(data_half, workdir, tmp_path, cluster):
    """One node: the rank runs in place, in the step the plugin runs the rule in (no srun of the launch's own)."""
    job, log = pretrain_job("slurm-dl1", data_half, workdir, tmp_path, cluster)
    assert job["Partition"] == "dl1" and "gres/hpu=8" in job["AllocTRES"]
    assert job["AllocCPUS"] == str(cluster.cpus)  # --exclusive: the whole node
    assert "launching" not in log and "rank 0 of 1: trained weights sha256" in log


def test_pretrain_runs_on_a_whole_gpu_node_as_an_mpi_job_whose_srun_starts_the_ranks(
    data_half, workdir, tmp_path, cluster
):
    """The GPU profile's job as SLURM takes it: the gpu partition, the node's 8 GPUs (stand-in device files on the
    test cluster), and the plugin's `mpi` mode, where the job's own srun starts torch_spawn."""
    job, log = pretrain_job("slurm-gpu", data_half, workdir, tmp_path, cluster)
    assert job["Partition"] == "gpu" and "gres/gpu=8" in job["AllocTRES"]
    assert "launching 1 ranks: torchrun --nnodes=1 --nproc_per_node=1 --rdzv_backend=c10d" in log


def test_dl1_profile_plans_data_rules_on_the_cpu_partition_and_pretrain_on_a_whole_dl1_node(workdir):
    done = snakemake(
        workdir, "-n", "--workflow-profile", str(REPO / "profiles/slurm-dl1"), config=two_source_config(workdir)
    )
    jobs = planned_resources(done.stdout)
    data_jobs = [(rule, resources) for rule, resources in jobs if rule in DATA_JOBS]
    assert Counter(rule for rule, _ in data_jobs) == DATA_JOBS
    assert {resources["slurm_partition"] for _, resources in data_jobs} == {"cpu"}
    pretrain = [resources for rule, resources in jobs if rule == "pretrain"]
    assert len(pretrain) == 1
    assert {key: pretrain[0].get(key) for key in ("slurm_partition", "hpu", "gpu", "gres", "slurm_extra", "tasks")} == {
        "slurm_partition": "dl1",
        "hpu": "8",
        "gpu": "0",
        "gres": "hpu:8",
        "slurm_extra": "--exclusive --signal=TERM@600",
        "tasks": "1",
    }
    assert pretrain[0]["nodes"] == "1"


def test_profiles_mark_every_site_value():
    for name in ("slurm-cpu", "slurm-dl1", "slurm-gpu"):
        for line in (REPO / "profiles" / name / "config.yaml").read_text().splitlines():
            key = line.split(":", 1)[0].strip()
            if key in ("slurm_account", "slurm_partition", "gres", "constraint"):
                assert "# SITE:" in line, f"profiles/{name}: {line.strip()!r} is site-specific but not marked SITE"


@pytest.mark.parametrize("classic", ["bert-base-dl1.yaml", "bert-base-dl1-tutorial.yaml"])
def test_classic_runs_on_dl1_plan_gaudi_spawn_over_eight_hpus(workdir, classic):
    profile = ("--workflow-profile", str(REPO / "profiles/slurm-dl1"))
    classic = ("--configfile", str(REPO / "config" / classic))
    done = snakemake(workdir, "-n", "-p", *profile, *classic)
    assert re.search(r"gaudi_spawn.py --world_size 8 --use_mpi \S*scripts/pretrain.py --backend hpu ", done.stdout)
    pretrain = printed_settings(workdir, done.stdout, "pretrain.py", "--pretrain")
    assert pretrain["backend"] == "auto" and pretrain["dataloader_num_workers"] == 2
    planned = snakemake(workdir, "-n", "calibrate", *profile, *classic).stdout
    assert re.search(r"calibrate\s+1\b", planned)
    done = snakemake(workdir, "-n", "-p", "--resources", "hpu=4", *profile, *classic)
    assert "gaudi_spawn.py --world_size 4 --use_mpi" in done.stdout


def planned_launch(workdir, profile: str, nodes: int, *args: str, config: dict | None = None):
    """(pretrain's resources, its shell command) in a dry run with `profile` and SNAKEBERT_NODES=`nodes`."""
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-n", "-p", "results/model"]
    if config is not None:
        args = (*args, "--configfile", str(write_config(workdir, config)))
    environment = {**snakemake_env(), "SNAKEBERT_NODES": str(nodes)}
    command += ["--workflow-profile", str(REPO / "profiles" / profile), *args]
    done = subprocess.run(command, cwd=workdir, env=environment, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    [resources] = [found for rule, found in planned_resources(done.stdout) if rule == "pretrain"]
    [shell] = [line for line in done.stdout.splitlines() if "scripts/pretrain.py" in line]
    return resources, shell


@pytest.mark.parametrize("nodes", [1, 2, 4])
def test_dl1_profile_launches_8_ranks_on_each_node(workdir, nodes):
    resources, shell = planned_launch(workdir, "slurm-dl1", nodes, config=two_source_config(workdir))
    assert (resources["nodes"], resources["tasks"], resources["hpu"]) == (str(nodes), str(nodes), str(8 * nodes))
    assert resources["gres"] == "hpu:8"  # per node
    spawn = "--world_size 8 --use_mpi" if nodes == 1 else f"--world_size {8 * nodes} --nodes {nodes} --use_deepspeed"
    assert re.search(rf"python \S*gaudi_spawn.py {spawn} \S*pretrain.py --backend hpu --world-size {8 * nodes} ", shell)
    # SIGTERM ahead of the time limit where mpirun runs the ranks, not where DeepSpeed does
    assert resources["slurm_extra"] == ("--exclusive --signal=TERM@600" if nodes == 1 else "--exclusive")


@pytest.mark.parametrize("nodes", [1, 2, 4])
def test_cpu_profile_runs_one_node_in_place_and_several_through_an_srun_of_its_own(workdir, nodes):
    """One node: in the plugin's step. Several: the plugin's `mpi` mode, so that the launch's srun is not inside a
    step of the plugin's, where a SIGTERM would make that srun kill the launch's step at once."""
    resources, shell = planned_launch(workdir, "slurm-cpu", nodes, config=two_source_config(workdir))
    assert (resources["nodes"], resources["tasks"], resources["slurm_extra"]) == (
        str(nodes),
        str(nodes),
        "--signal=TERM@600",
    )
    assert resources.get("mpi") == (None if nodes == 1 else "srun")
    launch = "python " if nodes == 1 else (
        rf"srun --overlap --nodes {nodes} --ntasks {nodes} --ntasks-per-node 1 --kill-on-bad-exit=1 "
        rf"python \S*torch_spawn.py --nodes {nodes} --nproc_per_node 1 "
    )  # fmt: skip
    assert re.search(rf"Shell command: {launch}\S*pretrain.py --backend cpu --world-size {nodes} ", shell)


@pytest.mark.parametrize("nodes", [1, 2, 4])
def test_gpu_profile_starts_torchrun_on_each_node_through_srun(workdir, nodes):
    resources, shell = planned_launch(workdir, "slurm-gpu", nodes, config=two_source_config(workdir))
    assert (resources["nodes"], resources["gpu"], resources["mpi"]) == (str(nodes), str(8 * nodes), "srun")
    assert "tasks" not in resources  # the plugin would read it as tasks per GPU
    assert re.search(
        rf"Shell command: srun --overlap --nodes {nodes} --ntasks {nodes} --ntasks-per-node 1 --gpus-per-node 8 "
        rf"--kill-on-bad-exit=1 python \S*torch_spawn.py --nodes {nodes} --nproc_per_node 8 \S*pretrain.py "
        rf"--backend cuda --world-size {8 * nodes} ",
        shell,
    )


def test_classic_run_on_four_dl1_nodes_plans_a_32_rank_deepspeed_launch(workdir):
    classic = ("--configfile", str(REPO / "config/bert-base-dl1.yaml"))
    _, shell = planned_launch(workdir, "slurm-dl1", 4, *classic)
    assert re.search(r"gaudi_spawn.py --world_size 32 --nodes 4 --use_deepspeed \S*pretrain.py --backend hpu ", shell)


@pytest.mark.parametrize(
    ("profile", "backend", "device", "partition"),
    [("slurm-dl1", "hpu", "hpu", "dl1"), ("slurm-gpu", "cuda", "gpu", "gpu"), ("slurm-cpu", "cpu", None, "cpu")],
)
def test_each_fine_tuning_run_is_a_job_on_one_device_of_the_profiles_accelerator(
    workdir, profile, backend, device, partition
):
    done = snakemake(workdir, "-n", "-p", "--workflow-profile", str(REPO / "profiles" / profile),
                     config=two_source_config(workdir))  # fmt: skip
    jobs = [resources for rule, resources in planned_resources(done.stdout) if rule == "finetune"]
    # the default tasks, pretrained and random init each: party's 2 rates (seed 1) and seeds 2 and 3; names' 3 seeds
    assert len(jobs) == 14
    assert {resources.get(device) for resources in jobs} == ({"1"} if device else {None})
    assert {resources["slurm_partition"] for resources in jobs} == {partition}
    commands = [line for line in done.stdout.splitlines() if "scripts/finetune.py" in line]
    assert len(commands) == 14 and all(f" --backend {backend} " in line for line in commands)
