"""The cost of the per-step stop agreement (stop_request.StopOnRequest: a max-reduce of two flags on a gloo group
after every optimizer step) against the step it follows, measured inside 2-rank CPU runs of scripts/pretrain.py
through scripts/torch_spawn.py, with the default config's model and pretrain settings (no checkpoint, no
evaluation), one run per phase of the default config. Each rank times every agreement and every step (end of one
step to the end of the next, agreement left out); reported: the median agreement over the median step, per rank
and phase, the ratio the goal bounds (< 1%).

    python bench/stop_agreement.py --manifest results/dataset/manifest.json --tokenizer results/tokenizer \
        [--steps 60] [--threads 1]
"""

import argparse
import json
import os
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from snakebert.files.settings_files import settings_file  # noqa: E402


def timed_rank(out: str) -> None:
    """Run as one rank: pretrain.py (the arguments after the bench's) with the agreement timed."""
    from snakebert.training import stop_request

    agreements, step_ends = [], []
    agree = stop_request.StopOnRequest.on_step_end

    def on_step_end(self, args, state, control, **kwargs):
        started = time.perf_counter()
        control = agree(self, args, state, control, **kwargs)
        agreements.append(time.perf_counter() - started)
        step_ends.append((started, time.perf_counter()))
        return control

    stop_request.StopOnRequest.on_step_end = on_step_end
    sys.argv = [str(REPO / "scripts/pretrain.py"), *sys.argv[3:]]
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    finally:
        steps = [begin - end for (_, end), (begin, _) in zip(step_ends, step_ends[1:], strict=False)]
        record = {"agreement": statistics.median(agreements[5:]), "step": statistics.median(steps[5:])}
        Path(f"{out}/rank-{os.environ['RANK']}.json").write_text(json.dumps(record))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    from snakebert.config_defaults import schema_defaults

    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    for number, phase in enumerate(config["pretrain"]["phases"], 1):
        one = {key: value for key, value in phase.items() if key != "fraction"} | {"steps": args.steps}
        print(f"phase {number} ({phase['block_size']}-token blocks, {phase['per_device_train_batch_size']} per rank)")
        timed_run(args, config["model"], {**schema_defaults("pretrain"), **config["pretrain"], "phases": [one]})


def timed_run(args: argparse.Namespace, model: dict, settings: dict) -> None:
    never = args.steps + 1
    settings |= {"max_steps": args.steps, "save_steps": never, "eval_steps": never, "logging_steps": never}
    settings |= {"warmup_steps": 5}
    with tempfile.TemporaryDirectory() as folder:
        command = [
            sys.executable, str(REPO / "scripts/torch_spawn.py"), "--nproc_per_node", "2", __file__, "--rank", folder,
            "--backend", "cpu", "--world-size", "2", "--manifest", args.manifest, "--tokenizer", args.tokenizer,
            "--model", settings_file(model, Path(folder)), "--pretrain", settings_file(settings, Path(folder)),
            "--threads", str(args.threads),
            "--checkpoints", f"{folder}/checkpoints", "--out", f"{folder}/model",
        ]  # fmt: skip
        subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True)
        for rank in (0, 1):
            record = json.loads(Path(f"{folder}/rank-{rank}.json").read_text())
            print(
                f"  rank {rank}: agreement {record['agreement'] * 1e3:.3f} ms, step {record['step'] * 1e3:.1f} ms: "
                f"{record['agreement'] / record['step']:.4%} of a step"
            )


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--rank":
        timed_rank(sys.argv[2])
    else:
        main()
