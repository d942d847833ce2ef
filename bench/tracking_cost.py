"""What TensorBoard's history costs a pretraining run: the default config's pretraining, run in this process as its
job runs it (snakebert.training.pretrain), with `tracking.trackers` [tensorboard] and [], side by side.

    python bench/tracking_cost.py [--steps 200] [--repeats 3] [--workdir DIR]

The data half of the default config runs once (`snakemake results/dataset/manifest.json`); then each arm trains
`--steps` steps of the default config's recipe (its phases, its logging every 20 steps, no evaluation or checkpoint
inside the run) from a fresh checkpoint folder, in interleaved repetitions (step_clock.interleaved). Per run: the
training loops' seconds (the trainer's train_runtime over the phases) and, for the tracked arm, the seconds spent
inside the history's callbacks (every call of SegmentHistory's on_train_begin, on_log and on_train_end, timed), as a
share of the training loops' seconds: the tracker's cost measured within the run itself, free of the run-to-run
noise. Reports every run, each arm's medians, and tracked/untracked training seconds repetition by repetition.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from step_clock import interleaved, ratios  # noqa: E402

from snakebert.config_defaults import schema_defaults  # noqa: E402
from snakebert.tracking.tensorboard import SegmentHistory  # noqa: E402
from snakebert.training.job import TrainingJob  # noqa: E402
from snakebert.training.pretrain import pretrain  # noqa: E402

ARMS = ("tensorboard", "none")
TIMED = ("on_train_begin", "on_log", "on_train_end")


class CallbackClock:
    """Seconds spent inside SegmentHistory's callbacks since the last `take`."""

    def __init__(self) -> None:
        self.seconds = 0.0
        for name in TIMED:
            setattr(SegmentHistory, name, self.timed(getattr(SegmentHistory, name)))

    def timed(self, method):
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return wrapper

    def take(self) -> float:
        taken, self.seconds = self.seconds, 0.0
        return taken


def job(workdir: Path, arm: str, steps: int, run: int) -> TrainingJob:
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    settings = {**schema_defaults("pretrain"), **config["pretrain"], "max_steps": steps,
                "save_steps": steps, "eval_steps": steps}  # fmt: skip
    model = {**schema_defaults("model"), **config.get("model", {})}
    return TrainingJob(
        str(workdir / "results/dataset/manifest.json"), str(workdir / "results/tokenizer"), model, settings,
        backend="cpu", checkpoints=str(workdir / f"checkpoints/run-{run}"),
        trackers=("tensorboard",) if arm == "tensorboard" else (),
        tracking_dir=str(workdir / f"logs/tracking/run-{run}"),
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="a folder to keep the run in (default: a temporary one)")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-tracking-"))
    workdir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--cores", "2"]
    subprocess.run([*command, "results/dataset/manifest.json"], cwd=workdir, check=True, capture_output=True)
    clock, runs = CallbackClock(), []

    def measure(arm: str) -> dict:
        runs.append(arm)
        metrics = pretrain(job(workdir, arm, args.steps, len(runs)), str(workdir / f"models/run-{len(runs)}"))
        tracker = clock.take()
        return {"train_seconds": metrics.train_runtime, "tracker_seconds": tracker,
                "tracker share": tracker / metrics.train_runtime}  # fmt: skip

    results = interleaved(ARMS, args.repeats, measure)
    median = {arm: {key: statistics.median(run[key] for run in results[arm]) for key in results[arm][0]}
              for arm in ARMS}  # fmt: skip
    report = {
        "steps": args.steps, "repeats": args.repeats, "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip(),
        "runs": results, "median": median,
        "tensorboard/none train seconds": ratios([run["train_seconds"] for run in results["tensorboard"]],
                                                 [run["train_seconds"] for run in results["none"]]),
    }  # fmt: skip
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
