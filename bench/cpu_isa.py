"""What pinning the CPU's instruction set costs, and whether it changes a result on this machine: the default config's
pretraining throughput (`snakemake calibrate`) and its held-out MLM evaluation (`evaluate`), with the host's own
kernels against MKL, oneDNN and torch's own CPU kernels held to AVX2 (`MKL_CBWR=AVX2`, `ONEDNN_MAX_CPU_ISA=AVX2`,
`ATEN_CPU_CAPABILITY=avx2`), the setting under which x86 machines of different generations can run the same code
paths.

    python bench/cpu_isa.py --workdir DIR [--repeats 3]

DIR is a finished default run (`snakemake --cores all` there first): its data and model are reused. The arms are
interleaved, each `calibrate` forced to run again, then `evaluate` once per arm. It prints each arm's samples per
second (median of the repeats, the ratio to the host's), the instruction set torch reports, and the MLM loss and
masked accuracy to all their digits. torch.compile's generated kernels follow the host unless told otherwise, so
equal results here do not prove equal results on another machine: run it there too.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from reference_model import REPO, git

ARMS = {
    "host": {},
    "avx2": {"MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"},
}


def snakemake(workdir: Path, arm: str, *args: str) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **ARMS[arm]}
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--cores", "2", *args]
    subprocess.run(command, cwd=workdir, env=env, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True, help="a finished default run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    workdir = Path(args.workdir).resolve()
    speeds = {arm: [] for arm in ARMS}
    for _ in range(args.repeats):
        for arm in ARMS:
            snakemake(workdir, arm, "calibrate", "--forcerun", "calibrate")
            speeds[arm].append(json.loads((workdir / "results/calibration.json").read_text())["samples_per_second"])
    evaluations = {}
    for arm in ARMS:
        snakemake(workdir, arm, "results/eval/metrics.json", "--forcerun", "evaluate")
        evaluations[arm] = json.loads((workdir / "results/eval/metrics.json").read_text())
    host = statistics.median(speeds["host"])
    print(f"commit {git('rev-parse', '--short', 'HEAD')}; {workdir}\n")
    print("| arm | samples/s (median) | ratio to host | torch's CPU kernels | MLM loss | masked accuracy |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for arm in ARMS:
        speed, found = statistics.median(speeds[arm]), evaluations[arm]
        print(
            f"| {arm} | {speed:.1f} ({', '.join(f'{value:.1f}' for value in speeds[arm])}) | {speed / host:.3f} | "
            f"{found['machine']['cpu_capability']} | {found['mlm_loss']!r} | {found['masked_token_accuracy']!r} |"
        )


if __name__ == "__main__":
    main()
