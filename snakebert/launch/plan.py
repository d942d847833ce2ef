"""One training job's launch, planned when the workflow is read: the backend, the ranks over all nodes, the SLURM
nodes and the command that starts the training script, from the rule's resources (gpu, hpu, nodes, tasks, mpi: a
mapping, or Snakemake's resources object) and the config. The backend table (training/backends.py) says what each
backend counts and how it launches; a plan that cannot run is a DataError naming the resources."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..errors import DataError
from ..training.backends import BACKENDS, backend_problems, device_count, resolve_backend

DEVICE_RESOURCES = {backend.resource: 0 for backend in BACKENDS.values() if backend.resource}  # the rules' defaults


@dataclass(frozen=True)
class LaunchPlan:
    backend: str  # `pretrain.backend` with `auto` resolved
    ranks: int  # over all nodes, one per device of the backend's resource (the cpu backend: one per node)
    nodes: int | None  # the SLURM nodes the rule asks for, None for a run on this machine
    step_nodes: int | None  # the nodes the launch starts a SLURM step of its own on, None for a launch in place
    launch: str  # how the backend's launcher starts the training script, which follows it

    @property
    def node_count(self) -> int:
        return self.nodes or 1


def resource(resources, name: str, default=None):
    """A rule resource from a mapping or from Snakemake's resources (attributes)."""
    return resources.get(name, default) if isinstance(resources, Mapping) else getattr(resources, name, default)


def rule_devices(resources) -> dict[str, int]:
    return {name: resource(resources, name, 0) for name in DEVICE_RESOURCES}


def rule_nodes(resources) -> int | None:
    """The SLURM nodes the rule asks for (the SLURM profiles' `nodes`), None for a run on this machine."""
    nodes = resource(resources, "nodes")
    if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1):
        raise DataError(f"resource nodes={nodes!r}: a whole number of nodes, at least 1, is needed")
    return nodes


def check_tasks(resources, nodes: int | None, backend: str) -> None:
    """Several nodes need as many tasks, unless the backend's jobs count tasks per node (Backend.tasks_per_node)."""
    tasks = resource(resources, "tasks", 1)
    if nodes and nodes > 1 and not BACKENDS[backend].tasks_per_node and tasks != nodes:
        raise DataError(
            f"resources nodes={nodes} and tasks={tasks}: SLURM would shrink the job to "
            "as many nodes as tasks, so tasks must equal nodes (the SLURM profiles set both from SNAKEBERT_NODES)"
        )


def check_backend(model: dict, backend: str) -> None:
    for problem in backend_problems(model, backend):
        raise DataError(problem)


def job_backend(requested: str, resources, model: dict) -> str:
    """`requested` (`pretrain.backend` or `finetune.backend`) with `auto` resolved from the rule's devices, refused
    where the model has no path on it."""
    backend = resolve_backend(requested, rule_devices(resources))
    check_backend(model, backend)
    return backend


def launch_step_nodes(resources, nodes: int | None) -> int | None:
    """The nodes on which the launch starts a SLURM step of its own: those of a job whose command the SLURM plugin
    runs outside any step (its `mpi` mode, which the SLURM profiles use for several nodes). None for a launch in
    place: on this machine, or on the one node of a job that the plugin runs in a step of its own, which a SIGTERM
    to the job's steps then reaches as it reaches a local run (a nested srun would answer it by killing the launch's
    step before any save; docs/long-runs.md)."""
    if nodes and (nodes > 1 or resource(resources, "mpi")):
        return nodes
    return None


def launch_plan(resources, requested: str, model: dict, script: Callable[[str], str]) -> LaunchPlan:
    """The launch of a training rule given `resources`, `requested` (`pretrain.backend`) and the `model` config;
    `script` gives the path of a script of scripts/ as the command names it."""
    nodes, devices = rule_nodes(resources), rule_devices(resources)
    backend = resolve_backend(requested, devices)
    check_tasks(resources, nodes, backend)
    check_backend(model, backend)
    ranks = device_count(backend, devices, nodes)
    node_count = nodes or 1
    if ranks % node_count:
        raise DataError(
            f"resources {BACKENDS[backend].resource}={ranks} and nodes={nodes}: the devices must split evenly "
            "between the nodes"
        )
    steps = launch_step_nodes(resources, nodes)
    return LaunchPlan(backend, ranks, nodes, steps, BACKENDS[backend].launch(ranks // node_count, steps, script))
