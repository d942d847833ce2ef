"""What a result records of its machine (snakebert/machine.py)."""

import torch

from snakebert.machine import cpu_model, machine


def test_a_cpu_job_records_the_cpu_and_the_instruction_set_torch_uses():
    found = machine("cpu")
    assert found == {
        "cpu": cpu_model(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "backend": "cpu",
        "accelerator": None,
    }
    assert found["cpu"] and found["cpu_capability"] in ("DEFAULT", "NO AVX", "AVX2", "AVX512", "SVE256", "ZVECTOR")
    assert machine("hpu")["accelerator"] == "Gaudi HPU"
