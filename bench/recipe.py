"""Time to quality of pretraining recipes, side by side on this machine, through the real workflow: a scaled-down
BERT (4 layers, hidden 256, 4 heads) on the embedded corpus, each recipe (an arm) given the same training time.

    python bench/recipe.py [--arms tutorial,run_mlm,...] [--budget 300] [--threads 2] [--workdir DIR]

The data half runs once (`snakemake results/dataset/manifest.json`, packing 512- and 128-token blocks); each arm
works in a copy of it. Equal time: every arm first runs `snakemake calibrate` (a burst of each of its phases), the
bursts of all arms twice, interleaved, and its steps are the budget over the median seconds per step of its phases
(a phase's share of the steps at its own speed), pooled over every arm's bursts of the same
shape (block size, batch, predictions per block): arms that differ only in settings of the optimizer train as many
steps. Then `snakemake results/finetune/party/metrics.json` pretrains,
evaluates on the 512-token validation blocks at 15% (whatever the arm trains at) and asks the fill-mask probes;
for the `--downstream` arms `snakemake results/finetune/party/metrics.json` fine-tunes the pretrained model and
random initialisation (3 seeds each) beside the baselines.

Reported per arm: steps, tokens, the held-out MLM loss during training (every eval interval, on the same 64
validation blocks at 15%) and at the end (every validation block), the training time at which the held-out loss
first reaches the tutorial arm's final loss (steps x the calibrated seconds per step), the probe hits, and for the
`--downstream` arms the macro-F1 on the embedded task (median and min-max over 3 seeds) and the pretraining gain.
Everything is written to <workdir>/recipe.json.
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from snakebert.config_defaults import schema_defaults  # noqa: E402
from snakebert.training.phases import plan_phases  # noqa: E402

sys.path.insert(0, str(REPO / "bench"))
from reference_model import snakemake  # noqa: E402  (the same call of the workflow, with its log and timing)

MODEL = {"architecture": "bert", "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
         "intermediate_size": 1024, "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1}  # fmt: skip
BASE = {  # what every arm trains with unless it says otherwise (not config/config.yaml's recipe)
    "phases": [],
    "per_device_train_batch_size": 8,
    "learning_rate": 5.0e-5,
    "adam_beta2": 0.999,
    "adam_epsilon": 1.0e-8,
    "final_lr_fraction": 0.0,
    "mlm_probability": 0.15,
    "weight_decay": 0.01,
}
PHASES = [  # 90% of the steps on 128-token blocks (4 x the blocks: the same tokens per step), then 512
    {"block_size": 128, "fraction": 0.9, "per_device_train_batch_size": 32, "max_predictions": 40},
    {"block_size": 512, "fraction": 0.1},
]
TUTORIAL = {"learning_rate": 5.0e-5, "warmup_fraction": 0.1, "weight_decay": 0.01}
NEW = {
    "learning_rate": 5.0e-4,
    "adam_beta2": 0.98,
    "adam_epsilon": 1.0e-6,
    "warmup_fraction": 0.06,
    "final_lr_fraction": 0.02,
    "mlm_probability": 0.3,
    "phases": PHASES,
}
ARMS = {  # pretrain settings over BASE; warmup_fraction is turned into warmup_steps
    "tutorial": TUTORIAL,  # the tutorial's recipe: 5e-5, 10% warm-up, one phase at 512
    "run_mlm": {"learning_rate": 5.0e-5, "warmup_fraction": 0.0, "weight_decay": 0.0},  # run_mlm.py's defaults
    "tutorial+lr": {**TUTORIAL, "learning_rate": NEW["learning_rate"]},
    "tutorial+lr+adam": {**TUTORIAL, **{key: NEW[key] for key in ("learning_rate", "adam_beta2", "adam_epsilon")}},
    "new-phases": {key: value for key, value in NEW.items() if key != "phases"},  # the new recipe at 512 only
    "new-mask": {**NEW, "mlm_probability": 0.15},  # the new recipe at BERT's mask rate
    "new": NEW,
}
TARGET_ARM = "tutorial"  # the others are timed to its final held-out loss
STEP_UNIT = 40  # an arm's steps are a multiple: 8 evaluations at whole steps, phases of 90% and 10% exact


def arm_config(arm: dict, steps: int) -> dict:
    """The config file of an arm training `steps` steps (the default config's sections, the bench's model)."""
    settings = {**BASE, **{key: value for key, value in arm.items() if key != "warmup_fraction"}}
    settings["warmup_steps"] = round(arm["warmup_fraction"] * steps)
    settings |= {"max_steps": steps, "eval_steps": max(steps // 8, 1), "save_steps": steps, "eval_blocks": 64}
    settings |= {"logging_steps": max(steps // 40, 1)}
    return {
        "model": MODEL,
        "pretrain": settings,
        "calibrate": {"warmup_steps": 3, "steps": 10},
        "finetune": {"seeds": 3},
    }


def write_config(folder: Path, config: dict) -> Path:
    path = folder / "bench-config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def planned(arm: dict, steps: int):
    """The phases of an arm training `steps` steps, as pretrain plans them."""
    default = yaml.safe_load((REPO / "config/config.yaml").read_text())["pretrain"]
    settings = {**schema_defaults("pretrain"), **default, **arm_config(arm, steps)["pretrain"]}
    return plan_phases(settings, 512)


def shapes(arm: dict) -> list[tuple[int, int, int]]:
    """Each phase's (block size, batch, predictions per block): what its step time depends on."""
    return [(phase.block_size, phase.per_device_train_batch_size, phase.predictions) for phase in planned(arm, 100)]


def seconds_per_step(calibrations: dict[str, list[dict]]) -> dict[tuple, float]:
    """The median seconds per step of each phase shape, over every calibration of every arm with that shape."""
    pooled = {}
    for name, runs in calibrations.items():
        for run in runs:
            for shape, phase in zip(shapes(ARMS[name]), run.get("phases", [run]), strict=True):
                pooled.setdefault(shape, []).append(phase["seconds_per_step"])
    return {shape: statistics.median(seconds) for shape, seconds in pooled.items()}


def phase_steps(arm: dict, steps: int) -> list[int]:
    """The steps of each phase of an arm training `steps` steps."""
    return [phase.steps for phase in planned(arm, steps)]


def budget_steps(arm: dict, per_step: list[float], budget: float) -> int:
    """The most steps whose phases train within `budget` seconds at `per_step` seconds per step of each phase."""
    fractions = [phase.steps / STEP_UNIT for phase in planned(arm, STEP_UNIT)]
    steps = int(budget / sum(fraction * seconds for fraction, seconds in zip(fractions, per_step, strict=True)))
    return steps - steps % STEP_UNIT


def elapsed(step: int, arm: dict, steps: int, per_step: list[float]) -> float:
    """Training seconds to the end of `step`, at each phase's calibrated seconds per step."""
    seconds, start = 0.0, 0
    for count, rate in zip(phase_steps(arm, steps), per_step, strict=True):
        seconds += max(0, min(step, start + count) - start) * rate
        start += count
    return seconds


def curve(workdir: Path) -> list[tuple[int, float]]:
    history = json.loads((workdir / "results/model/log_history.json").read_text())
    return [(entry["step"], entry["eval_loss"]) for entry in history if "eval_loss" in entry]


def time_to(loss: float, points: list[tuple[int, float]], arm: dict, steps: int, per_step: list[float]):
    """The training seconds at which the held-out loss first reaches `loss` (linear between evaluations)."""
    previous = (0, float("inf"))
    for step, value in points:
        if value <= loss:
            if previous[1] == float("inf"):
                return elapsed(step, arm, steps, per_step)
            share = (previous[1] - loss) / (previous[1] - value)
            return elapsed(previous[0], arm, steps, per_step) + share * (
                elapsed(step, arm, steps, per_step) - elapsed(previous[0], arm, steps, per_step)
            )
        previous = (step, value)
    return None


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()


def spread(summary) -> str:
    if not summary or summary.get("median") is None:
        return "-"
    return f"{summary['median']:.3f} ({summary['min']:.3f} to {summary['max']:.3f})"


def table(results: dict, budget: float) -> str:
    lines = [
        f"| arm | steps | tokens | held-out loss (64 blocks, by eval) | final held-out loss | time to {TARGET_ARM}'s "
        "final loss | party macro-F1 | random init | gain over random | probe hits (top-1 most often) |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, result in results.items():
        losses = ", ".join(f"{loss:.2f}" for _, loss in result["curve"])
        reached = result["time_to_target"]
        shown = "-" if reached is None else f"{reached:.0f} s ({reached / budget:.2f}x budget)"
        probes = result["probes"]
        lines.append(
            f"| {name} | {result['steps']:,} | {result['tokens'] / 1e6:.2f} M | {losses} | {result['mlm_loss']:.3f} | "
            f"{shown} | {spread(result['macro_f1'])} | {spread(result['random_macro_f1'])} | "
            f"{spread(result['gain'])} | "
            f"{probes['hits']}/{probes['asked']} ({probes['most_common_top1']['token']}: "
            f"{probes['most_common_top1']['prompts']}) |"
        )
    baselines = next((result["baselines"] for result in results.values() if result["baselines"]), {})
    lines += ["", "Baselines (macro-F1): " + ", ".join(f"{name} {spread(score)}" for name, score in baselines.items())]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated, of {', '.join(ARMS)}")
    parser.add_argument("--budget", type=float, default=300, help="training seconds per arm")
    parser.add_argument("--threads", type=int, default=2, help="the cores of every job (snakemake --cores)")
    parser.add_argument("--calibrations", type=int, default=2, help="bursts of each arm, interleaved")
    parser.add_argument("--downstream", default="tutorial,new", help="the arms also fine-tuned (3 seeds each)")
    parser.add_argument("--workdir", help="a folder to keep the runs in (default: a temporary one)")
    args = parser.parse_args()
    arms = [arm.strip() for arm in args.arms.split(",") if arm.strip()]
    downstream = {arm.strip() for arm in args.downstream.split(",") if arm.strip()}
    if sorted(set(arms) - set(ARMS)) or TARGET_ARM not in arms:
        parser.error(f"--arms: known are {', '.join(ARMS)}, and {TARGET_ARM} is needed (the target loss)")
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-recipe-")).resolve()
    base = workdir / "data"
    base.mkdir(parents=True, exist_ok=True)
    config = write_config(base, arm_config(NEW, 100))
    seconds = snakemake(base, config, "results/dataset/manifest.json", base / "snakemake.log", args.threads)
    snakemake(base, config, "results/finetune/party/data", base / "snakemake-task.log", args.threads)
    print(f"data: {seconds:.0f} s; working directory {workdir}", file=sys.stderr, flush=True)

    folders = {}
    for name in arms:
        folders[name] = workdir / name
        if not folders[name].exists():
            shutil.copytree(base / "results", folders[name] / "results")
    calibrations = {name: [] for name in arms}
    for repetition in range(args.calibrations):  # interleaved: a machine that slows down slows every arm
        for name in arms:
            folder, kept = folders[name], folders[name] / f"calibration-{repetition}.json"
            if not kept.exists():  # a rerun of the bench in the same folder keeps its calibrations
                (folder / "results/calibration.json").unlink(missing_ok=True)
                config = write_config(folder, arm_config(ARMS[name], 100))
                snakemake(folder, config, "calibrate", folder / f"calibrate-{repetition}.log", args.threads)
                shutil.copy(folder / "results/calibration.json", kept)
            calibrations[name].append(json.loads(kept.read_text()))
    pooled = seconds_per_step(calibrations)
    results = {}
    for name in arms:
        folder, arm = folders[name], ARMS[name]
        per_step = [pooled[shape] for shape in shapes(arm)]
        steps = budget_steps(arm, per_step, args.budget)
        config = write_config(folder, arm_config(arm, steps))
        targets = ["results/eval/metrics.json", "results/eval/probes.json"]
        wall = sum(snakemake(folder, config, target, folder / "snakemake.log", args.threads) for target in targets)
        if name in downstream:
            task = "results/finetune/party/metrics.json"
            wall += snakemake(folder, config, task, folder / "snakemake-finetune.log", args.threads)
        training = json.loads((folder / "results/model/training_metrics.json").read_text())
        scored = (
            json.loads((folder / "results/finetune/party/metrics.json").read_text()) if name in downstream else None
        )
        probes = json.loads((folder / "results/eval/probes.json").read_text())
        sizes = [phase["block_size"] for phase in training["phases"]]
        batches = [phase["global_batch_size"] for phase in training["phases"]]
        tokens = sum(
            count * size * batch for count, size, batch in zip(phase_steps(arm, steps), sizes, batches, strict=True)
        )
        results[name] = {
            "settings": arm_config(arm, steps)["pretrain"],
            "seconds_per_step": per_step,
            "steps": steps,
            "tokens": tokens,
            "wall_seconds": wall,
            "train_runtime": training["train_runtime"],
            "curve": curve(folder),
            "mlm_loss": json.loads((folder / "results/eval/metrics.json").read_text())["mlm_loss"],
            "macro_f1": scored["models"]["pretrained"]["summary"].get("macro_f1") if scored else None,
            "random_macro_f1": scored["models"]["random"]["summary"].get("macro_f1") if scored else None,
            "gain": scored["pretraining_gain"] if scored else None,
            "probes": {
                "hits": sum(bool(probe["hit_top5"]) for probe in probes["probes"]),
                "asked": probes["answered"],
                "most_common_top1": probes["most_common_top1"],
            },
            "baselines": {
                model: entry["summary"].get("macro_f1")
                for model, entry in (scored["models"] if scored else {}).items()
                if entry["kind"] == "baseline"
            },
        }
        print(f"{name}: {steps} steps, {wall:.0f} s", file=sys.stderr, flush=True)
    target = results[TARGET_ARM]["curve"][-1][1]  # the same 64 blocks as every arm's curve
    for name in arms:
        found = results[name]
        found["time_to_target"] = time_to(target, found["curve"], ARMS[name], found["steps"], found["seconds_per_step"])
    dirty = " (with uncommitted changes)" if git("status", "--short") else ""
    summary = {"commit": git("rev-parse", "--short", "HEAD") + dirty, "budget": args.budget, "arms": results}
    (workdir / "recipe.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"commit {summary['commit']}; {args.budget:.0f} s of training per arm; {workdir / 'recipe.json'}\n")
    print(table(results, args.budget))


if __name__ == "__main__":
    main()
