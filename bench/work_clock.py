"""Wall and CPU seconds of a block of work, and a child process's report with its peak memory, for the benches that
time a method in a process of its own."""

import json
import os
import subprocess
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


def measured_child(command: list[str], environment: dict[str, str], what: str) -> dict:
    """Run `command`, whose last line of output is a JSON report, in a child process; add its peak RSS (ru_maxrss
    survives exec)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env={**os.environ, **environment}, text=True)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"{what} failed (status {status})")
    return {**json.loads(output.splitlines()[-1]), "peak_rss_mb": usage.ru_maxrss / 1024}
