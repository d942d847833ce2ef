"""One training job's launch (snakebert/launch/plan.py), from the resources the profiles give pretrain: each
backend on one node and on several, in place or through an srun step of its own, and the plans refused."""

from types import SimpleNamespace

import pytest
from helpers import load_script

from snakebert.errors import DataError
from snakebert.launch.plan import LaunchPlan, job_backend, launch_plan
from snakebert.training.pretrain import check_world_size

BERT = {"architecture": "bert"}
MODERNBERT = {"architecture": "modernbert"}
SCRIPT = "scripts/{}".format
GAUDI = "python scripts/gaudi_spawn.py"
STEP = "srun --overlap --nodes 2 --ntasks 2 --ntasks-per-node 1"
SPAWN = "python scripts/torch_spawn.py"


def plan(requested: str = "auto", model: dict = BERT, **resources) -> LaunchPlan:
    return launch_plan({"hpu": 0, "gpu": 0, **resources}, requested, model, SCRIPT)


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({}, LaunchPlan("cpu", 1, None, None, "python")),  # this machine
        ({"hpu": 8}, LaunchPlan("hpu", 8, None, None, f"{GAUDI} --world_size 8 --use_mpi")),
        ({"gpu": 4}, LaunchPlan("cuda", 4, None, None, f"{SPAWN} --nproc_per_node 4")),
        ({"gpu": 1}, LaunchPlan("cuda", 1, None, None, "python")),
        # slurm-cpu, one node: in place, in the step the plugin runs the rule in
        ({"nodes": 1, "tasks": 1}, LaunchPlan("cpu", 1, 1, None, "python")),
        # slurm-cpu, two nodes: the plugin's mpi mode, an srun step of the launch's own
        (
            {"nodes": 2, "tasks": 2, "mpi": "srun"},
            LaunchPlan("cpu", 2, 2, 2, f"{STEP} --kill-on-bad-exit=1 {SPAWN} --nodes 2 --nproc_per_node 1"),
        ),
        # slurm-dl1: mpirun on one node, DeepSpeed on several
        ({"hpu": 8, "nodes": 1, "tasks": 1}, LaunchPlan("hpu", 8, 1, None, f"{GAUDI} --world_size 8 --use_mpi")),
        (
            {"hpu": 16, "nodes": 2, "tasks": 2},
            LaunchPlan("hpu", 16, 2, 2, f"{GAUDI} --world_size 16 --nodes 2 --use_deepspeed"),
        ),
        # slurm-gpu: the plugin's mpi mode on one node too, tasks per node instead of tasks
        (
            {"gpu": 8, "nodes": 1, "mpi": "srun", "tasks_per_node": 8},
            LaunchPlan(
                "cuda",
                8,
                1,
                1,
                "srun --overlap --nodes 1 --ntasks 1 --ntasks-per-node 1 --gpus-per-node 8 --kill-on-bad-exit=1 "
                f"{SPAWN} --nodes 1 --nproc_per_node 8",
            ),
        ),
        (
            {"gpu": 16, "nodes": 2, "mpi": "srun", "tasks_per_node": 8},
            LaunchPlan(
                "cuda", 16, 2, 2, f"{STEP} --gpus-per-node 8 --kill-on-bad-exit=1 {SPAWN} --nodes 2 --nproc_per_node 8"
            ),
        ),
    ],
)
def test_the_plan_of_each_profile(resources, expected):
    assert plan(**resources) == expected


def test_an_explicit_backend_wins_over_the_devices():
    assert plan("hpu") == LaunchPlan("hpu", 1, None, None, f"{GAUDI} --world_size 1 --use_mpi")
    assert plan("cpu", gpu=4).backend == "cpu"


def test_the_node_count_is_one_on_this_machine():
    assert (plan().node_count, plan(nodes=2, tasks=2).node_count) == (1, 2)


def test_snakemakes_resources_are_read_as_attributes():
    resources = SimpleNamespace(hpu=16, gpu=0, nodes=2, tasks=2, _cores=8)
    assert launch_plan(resources, "auto", BERT, SCRIPT) == plan(hpu=16, nodes=2, tasks=2)


@pytest.mark.parametrize("nodes", [0, -1, 1.5, True, "2"])
def test_a_node_count_that_is_not_a_whole_number_is_refused(nodes):
    with pytest.raises(DataError, match=rf"^resource nodes={nodes!r}: a whole number of nodes, at least 1"):
        plan(nodes=nodes)


@pytest.mark.parametrize("resources", [{"nodes": 4}, {"hpu": 32, "nodes": 4, "tasks": 1}])
def test_several_nodes_without_as_many_tasks_are_refused(resources):
    tasks = resources.get("tasks", 1)
    with pytest.raises(DataError, match=rf"^resources nodes=4 and tasks={tasks}: SLURM would shrink") as refused:
        plan(**resources)
    assert "tasks must equal nodes (the SLURM profiles set both from SNAKEBERT_NODES)" in str(refused.value)


def test_a_backend_counting_tasks_per_node_needs_no_tasks():
    assert plan(gpu=16, nodes=2, mpi="srun").ranks == 16


def test_devices_that_do_not_split_evenly_between_the_nodes_are_refused():
    with pytest.raises(DataError, match=r"^resources hpu=12 and nodes=8: the devices must split evenly between"):
        plan(hpu=12, nodes=8, tasks=8)


def test_a_model_without_a_path_on_the_backend_is_refused():
    with pytest.raises(DataError, match="config model.architecture 'modernbert' is not supported on the hpu backend"):
        plan(model=MODERNBERT, hpu=8)
    with pytest.raises(DataError, match="config model.architecture 'modernbert' is not supported on the hpu backend"):
        plan("hpu", model=MODERNBERT)  # pretrain.backend: hpu, no HPU counted (a dry run on a laptop)
    assert plan(model=MODERNBERT, gpu=1).backend == "cuda"


def test_the_task_count_is_checked_before_the_model():
    with pytest.raises(DataError, match="tasks must equal nodes"):
        plan(model=MODERNBERT, hpu=16, nodes=2)


def test_a_fine_tuning_job_resolves_its_backend_from_its_device():
    assert job_backend("auto", {"hpu": 1, "gpu": 0}, BERT) == "hpu"
    assert job_backend("auto", SimpleNamespace(hpu=0, gpu=1), MODERNBERT) == "cuda"
    assert job_backend("auto", {"hpu": 0, "gpu": 0}, BERT) == "cpu"
    with pytest.raises(DataError, match="not supported on the hpu backend"):
        job_backend("hpu", {"hpu": 0, "gpu": 0}, MODERNBERT)


def test_a_launch_with_other_ranks_than_planned_is_refused(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "8")
    assert check_world_size("cpu", 8) == check_world_size("cpu", None) == 8
    with pytest.raises(DataError, match="the cuda launcher started 8 ranks, the workflow planned 16"):
        check_world_size("cuda", 16)


@pytest.mark.parametrize("launch", [["--world_size", "8", "--use_mpi"], ["--world_size", "32", "--nodes", "4",
                                                                          "--use_deepspeed"]])  # fmt: skip
def test_gaudi_spawn_passes_the_training_scripts_arguments_on_as_given(launch):
    """What follows the script on gaudi_spawn's command line, the tracking settings file among it, is the script's
    (DistributedRunner quotes it whole into each rank's command: tests/hpu/test_gaudi_contract.py)."""
    script = ["scripts/pretrain.py", "--backend", "hpu", "--tracking", ".snakemake/snakebert/tracking.json"]
    script += ["--tracking-dir", "logs/tracking/pretrain", "--world-size", "8", "--out", "results/model"]
    args = load_script("gaudi_spawn").parse([*launch, *script])
    assert [args.training_script, *args.training_script_args] == script
