"""The default run at several values of one setting (the architecture, the initial weight scale, the schedule's
scope), or under several config files, side by side on this machine: each arm runs the whole default workflow in its
own scratch directory, all at once, one core each, so every arm trains under the same load.

    python bench/setting_arms.py --key model.architecture --values bert,modernbert [--workdir DIR]
    python bench/setting_arms.py --key model.initializer_range --values 0.02,0.06
    python bench/setting_arms.py --key pretrain.lr_schedule_scope --values run,phase
    python bench/setting_arms.py --arm off=off.yaml --arm on=on.yaml

Each arm is config/config.yaml with `<section>.<key>` set, or with the arm's file over it (a second --configfile),
built to TARGETS. Reported per arm: the training blocks, the held-out MLM loss and masked accuracy (every validation
block of 512 at 15%), the probe hits in the top 5 and the distinct top-1 answers, per fine-tuning task the main
metric of the pretrained model and of random initialisation (median and min-max over 3 seeds) and the pretraining
gain (seed by seed: median and min-max), the cosine of adjacent learned position embeddings over the first 128
positions (how much order the model has learned; none for rotary positions), and the training's seconds (its
`train_runtime`, which a rerun that trains nothing keeps). Everything is written to <workdir>/setting-arms.json.
"""

import argparse
import json
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch
import yaml
from safetensors.torch import load_file

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
from reference_model import snakemake  # noqa: E402  (the same call of the workflow, with its log and timing)

TASKS = ("party", "names")
TARGETS = (
    *(f"results/finetune/{task}/metrics.json" for task in TASKS),
    "results/eval/metrics.json",
    "results/eval/probes.json",
)
POSITIONS = "bert.embeddings.position_embeddings.weight"


def run_arm(workdir: Path, settings: dict) -> float:
    """Build the targets in `workdir` with `settings` over the default config, on one core; the wall seconds."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "arm.yaml"
    config.write_text(yaml.safe_dump(settings))
    logs = [workdir / f"snakemake-{n}.log" for n in range(len(TARGETS))]
    return sum(snakemake(workdir, config, target, log, 1) for target, log in zip(TARGETS, logs, strict=True))


def adjacent_cosine(model_dir: Path, positions: int = 128) -> float | None:
    """The mean cosine between the learned embeddings of positions i and i + 1, i < `positions` (None: the model
    learns no position embeddings)."""
    weights = load_file(model_dir / "model.safetensors")
    if POSITIONS not in weights:
        return None
    table = torch.nn.functional.normalize(weights[POSITIONS][:positions], dim=-1)
    return float((table[1:] * table[:-1]).sum(-1).mean())


def task_scores(results: Path, task: str) -> dict:
    """A fine-tuning task's main metric, pretrained and from random initialisation, and the pretraining gain."""
    scored = json.loads((results / "finetune" / task / "metrics.json").read_text())
    metric = scored["pretraining_gain"]["metric"]
    models = {kind: scored["models"][kind]["summary"][metric] for kind in ("pretrained", "random")}
    return {"metric": metric, **models, "gain": scored["pretraining_gain"]}


def read_arm(workdir: Path, key: str, value, wall: float) -> dict:
    """What one arm's outputs say."""
    results = workdir / "results"
    held_out = json.loads((results / "eval" / "metrics.json").read_text())
    probes = json.loads((results / "eval" / "probes.json").read_text())
    manifest = json.loads((results / "dataset" / "manifest.json").read_text())
    pretrain_s = json.loads((results / "model" / "training_metrics.json").read_text())["train_runtime"]
    return {
        key: value,
        "model_type": json.loads((results / "model" / "config.json").read_text())["model_type"],
        "mlm_loss": held_out["mlm_loss"],
        "masked_token_accuracy": held_out["masked_token_accuracy"],
        "probe_hits_top5": sum(bool(probe["hit_top5"]) for probe in probes["probes"]),
        "probes_with_answers": probes["answered"],
        "distinct_top1": probes["distinct_top1"],
        "tasks": {task: task_scores(results, task) for task in TASKS},
        "train_blocks": manifest["split"]["train_blocks"],
        "adjacent_position_cosine": adjacent_cosine(results / "model"),
        "pretrain_s": pretrain_s,
        "wall_s": wall,
    }


def spread(summary: dict) -> str:
    return f"{summary['median']:.3f} ({summary['min']:.3f}-{summary['max']:.3f})"


def cosine(value: float | None) -> str:
    return "none (rotary)" if value is None else f"{value:.3f}"


def table(arms: list[dict], key: str) -> str:
    tasks = [f"{task} {score['metric']} pretrained | random init | gain" for task, score in arms[0]["tasks"].items()]
    lines = [
        f"| {key} | train blocks | held-out loss | masked accuracy | probe hits (top 5) | distinct top-1 "
        f"| {' | '.join(tasks)} | adjacent-position cosine | pretrain s |",
        "| ---: " * (8 + 3 * len(tasks)) + "|",
    ]
    for arm in arms:
        scores = [
            f"{spread(score['pretrained'])} | {spread(score['random'])} | {spread(score['gain'])}"
            for score in arm["tasks"].values()
        ]
        lines.append(
            f"| {arm[key]} | {arm['train_blocks']} | {arm['mlm_loss']:.3f} | {arm['masked_token_accuracy']:.1%} "
            f"| {arm['probe_hits_top5']} of {arm['probes_with_answers']} | {arm['distinct_top1']} "
            f"| {' | '.join(scores)} | {cosine(arm['adjacent_position_cosine'])} | {arm['pretrain_s']:.0f} |"
        )
    return "\n".join(lines)


def arms_asked(args: argparse.Namespace) -> tuple[str, dict]:
    """The arms' labels and the settings each sets over the default config."""
    if args.arm:
        labels = dict(arm.split("=", 1) for arm in args.arm)
        return "arm", {label: yaml.safe_load(Path(path).read_text()) for label, path in labels.items()}
    if not (args.key and args.values):
        raise SystemExit("give --key and --values, or --arm NAME=FILE for each arm")
    section, name = args.key.split(".")
    values = [yaml.safe_load(value) for value in args.values.split(",")]
    return args.key, {value: {section: {name: value}} for value in values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--key", help="the setting to vary, as section.name: model.architecture")
    parser.add_argument("--values", help="its comma-separated values, each read as YAML")
    parser.add_argument("--arm", action="append", help="NAME=FILE: an arm of the config file FILE over the default")
    parser.add_argument("--workdir", type=Path, default=None, help="scratch directory (default: a new temporary one)")
    args = parser.parse_args()
    key, arms_settings = arms_asked(args)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-setting-arms-"))
    folders = [workdir / f"{key}-{label}" for label in arms_settings]
    with ThreadPoolExecutor(len(folders)) as pool:
        walls = list(pool.map(run_arm, folders, arms_settings.values()))
    arms = [
        read_arm(folder, key, label, wall) for folder, label, wall in zip(folders, arms_settings, walls, strict=True)
    ]
    (workdir / "setting-arms.json").write_text(json.dumps(arms, indent=1) + "\n")
    print(table(arms, key))
    print(f"\n(everything in {workdir / 'setting-arms.json'})")


if __name__ == "__main__":
    main()
