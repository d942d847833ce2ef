"""Wall and CPU seconds of a block of work, for the benches that time a method in a process of its own."""

import time


class Clock:
    """Wall and CPU seconds of a block."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu

    def seconds(self) -> dict:
        return {"seconds": self.wall, "cpu_seconds": self.cpu}
