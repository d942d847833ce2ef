"""Stand-in for tests: the Habana runtime is not on this machine (see tests/hpu/standins/README.md).

Only `memory_stats`, which optimum-habana's GaudiTrainer.log calls at every logging step, even on the CPU.
"""


def memory_stats(device=None) -> dict[str, int]:
    """No HPU, no HPU memory: the keys `optimum.habana.utils.get_hpu_memory_stats` reads, in bytes."""
    return {"InUse": 0, "MaxInUse": 0, "Limit": 0}
