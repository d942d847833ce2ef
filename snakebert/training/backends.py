"""The training backends, one table: what each needs from the workflow (its device resource and launcher), how its
ranks learn the world size, and the trainer it builds. Adding a backend is an entry here, its trainer function, the
schema's `pretrain.backend` enum and the tests (tests/unit/test_tables.py checks that the enum equals the keys)."""

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..architectures import HPU_ARCHITECTURES
from ..environment_integers import environment_integer

GAUDI_CONFIG = Path(__file__).resolve().parents[2] / "config" / "gaudi_config.json"


@dataclass(frozen=True)
class TrainerOptions:
    """What a backend's trainer function reads beyond the training arguments every backend shares. Pretraining fills
    it from its job and its `pretrain` settings (trainers.build_trainer), fine-tuning from its job alone."""

    gaudi_config: str  # the GaudiConfig file
    on_device: bool = True  # False runs the HPU path's classes on the CPU (the contract tests)
    torch_compile: bool = False  # the CUDA path
    throughput_warmup_steps: int = 0  # GaudiTrainer's: the first steps left out of its throughput


# A trainer function takes (the TrainingArguments shared by every backend, the options) and returns (trainer class,
# its training arguments, further keyword arguments of the trainer).
TrainerFunction = Callable[[dict, TrainerOptions], tuple[type, object, dict]]


@dataclass(frozen=True)
class Backend:
    resource: str | None  # the rule resource that counts the job's devices, over all nodes: one rank per device
    # (devices per node, SLURM nodes to start a step on or None for a launch in place, path of a script) -> how the
    # script starts
    launch: Callable[[int, int | None, Callable[[str], str]], str]
    world_size_variables: tuple[str, ...]  # what its launcher sets on each rank, first one set wins
    rank_variables: tuple[str, ...]
    trainer: TrainerFunction
    # its SLURM jobs ask for their devices per node and a task per device (the plugin reads `tasks` as tasks per
    # GPU, so slurm-gpu sets tasks_per_node): their `tasks` need not equal their nodes
    tasks_per_node: bool = False


def cpu_trainer(arguments: dict, options: TrainerOptions):
    from transformers import Trainer, TrainingArguments

    return Trainer, TrainingArguments(**arguments, use_cpu=True), {}


def cuda_arguments(torch_compile: bool, capability: tuple[int, int]) -> dict:
    """The CUDA path's speed settings: bf16 and TF32 from Ampere on, fused AdamW, and torch.compile if asked."""
    ampere = capability[0] >= 8
    return {"bf16": ampere, "tf32": ampere, "optim": "adamw_torch_fused", "torch_compile": torch_compile}


def cuda_trainer(arguments: dict, options: TrainerOptions):
    import torch
    from transformers import Trainer, TrainingArguments

    speed = cuda_arguments(options.torch_compile, torch.cuda.get_device_capability())
    return Trainer, TrainingArguments(**arguments, **speed), {}


def hpu_trainer(arguments: dict, options: TrainerOptions):
    """optimum-habana's GaudiTrainer with the options' GaudiConfig; `on_device=False` runs it on the CPU (the
    contract tests do)."""
    from optimum.habana import GaudiConfig, GaudiTrainer, GaudiTrainingArguments

    on_device = options.on_device
    args = GaudiTrainingArguments(
        **arguments,
        use_habana=on_device,
        use_lazy_mode=on_device,
        use_cpu=not on_device,
        gaudi_config_name=options.gaudi_config if on_device else None,
        throughput_warmup_steps=options.throughput_warmup_steps,
        bf16=on_device,
    )
    return GaudiTrainer, args, {"gaudi_config": GaudiConfig.from_pretrained(options.gaudi_config)}


def gaudi_spawn(devices: int, nodes: int | None, script: Callable[[str], str]) -> str:
    """One node: mpirun over its HPUs. Several: DeepSpeed over a hostfile that the launcher builds from the
    SLURM allocation (it runs once, on the first node, and starts the ranks of every node over SSH)."""
    launcher = f"python {script('gaudi_spawn.py')}"
    if nodes and nodes > 1:
        return f"{launcher} --world_size {devices * nodes} --nodes {nodes} --use_deepspeed"
    return f"{launcher} --world_size {devices} --use_mpi"


def torchrun(devices: int, nodes: int | None, script: Callable[[str], str], gpus: bool = False) -> str:
    """Without a node count, in place: torch_spawn's torchrun over this machine's devices (a local run, or the
    step that the SLURM plugin runs a one-node job in), or plain python for one rank. With one (a SLURM job whose
    command runs outside any step): srun starts torch_spawn once per node, in a step of the launch's own, and each
    node's torchrun meets the others in a rendezvous on the first node; `gpus` gives each node's step its GPUs (a
    SLURM step gets none unless it asks)."""
    if nodes:
        step_gpus = f"--gpus-per-node {devices} " if gpus else ""
        return (
            f"srun --overlap --nodes {nodes} --ntasks {nodes} --ntasks-per-node 1 {step_gpus}--kill-on-bad-exit=1 "
            f"python {script('torch_spawn.py')} --nodes {nodes} --nproc_per_node {devices}"
        )
    return f"python {script('torch_spawn.py')} --nproc_per_node {devices}" if devices > 1 else "python"


BACKENDS = {  # in the order `auto` tries them
    "hpu": Backend(
        "hpu", gaudi_spawn, ("OMPI_COMM_WORLD_SIZE", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "RANK"), hpu_trainer
    ),
    "cuda": Backend("gpu", partial(torchrun, gpus=True), ("WORLD_SIZE",), ("RANK",), cuda_trainer, tasks_per_node=True),
    "cpu": Backend(None, torchrun, ("WORLD_SIZE",), ("RANK",), cpu_trainer),  # one rank per node
}


def backend_problems(model: dict, backend: str) -> list[str]:
    """The architecture against the backend that would train it: ModernBERT has no validated Gaudi 1 path."""
    if backend == "hpu" and model.get("architecture", "bert") not in (*HPU_ARCHITECTURES, None):  # None: a Hub base
        return [
            f"config model.architecture {model['architecture']!r} is not supported on the hpu backend (the Gaudi 1 "
            f"stack, optimum-habana 1.18, has no validated path for it): use {' or '.join(HPU_ARCHITECTURES)} there"
        ]
    return []


def resolve_backend(requested: str, devices: dict[str, int]) -> str:
    """`pretrain.backend`, with `auto` the first backend whose resource the rule is given (a profile or
    --set-resources), else cpu. The workflow resolves it once; the training script gets a concrete name."""
    if requested != "auto":
        return requested
    return next(name for name, backend in BACKENDS.items() if not backend.resource or devices[backend.resource] > 0)


def device_count(backend: str, devices: dict[str, int], nodes: int | None = None) -> int:
    """The ranks to launch over all nodes: the rule's devices of the backend's resource (at least 1), or one per
    node for a backend without devices."""
    resource = BACKENDS[backend].resource
    return max(devices[resource], 1) if resource else nodes or 1


def _first_set(variables: tuple[str, ...], default: int) -> int:
    return next((environment_integer(os.environ, name, default) for name in variables if os.environ.get(name)), default)


def world_size(backend: str) -> int:
    """This process's world size, as its backend's launcher announced it."""
    return _first_set(BACKENDS[backend].world_size_variables, 1)


def rank(backend: str) -> int:
    return _first_set(BACKENDS[backend].rank_variables, 0)
