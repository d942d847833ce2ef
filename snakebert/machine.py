"""What a result was measured on: the CPU model, the instruction set torch's CPU kernels use on it, and the backend
and accelerator that ran the job. Results repeat bit for bit on one machine type; on another they may differ in the
last digits, so each result names its machine."""

import platform
from pathlib import Path

import torch


def cpu_model() -> str:
    """The CPU's model name as Linux reports it, else what the platform module knows."""
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.is_file() else []
    names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
    return names[0] if names else platform.processor() or platform.machine()


def machine(backend: str) -> dict:
    """The machine of a job run on `backend` (cpu, cuda or hpu)."""
    accelerator = torch.cuda.get_device_name(0) if backend == "cuda" else "Gaudi HPU" if backend == "hpu" else None
    return {
        "cpu": cpu_model(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "backend": backend,
        "accelerator": accelerator,
    }
