"""The default run at several values of one setting (the architecture, the initial weight scale, the schedule's
scope), side by side on this machine: each value runs the whole default workflow in its own scratch directory, all
at once, one core each, so every arm trains under the same load.

    python bench/setting_arms.py --key model.architecture --values bert,modernbert [--workdir DIR]
    python bench/setting_arms.py --key model.initializer_range --values 0.02,0.06
    python bench/setting_arms.py --key pretrain.lr_schedule_scope --values run,phase

Each arm is config/config.yaml with `<section>.<key>` set (a second --configfile), built to TARGETS.
Reported per arm: the held-out MLM loss and masked accuracy (every validation block of 512 at 15%), the probe hits
in the top 5 and the distinct top-1 answers, the fine-tuned macro-F1 of the pretrained model and of random
initialisation (median and min-max over 3 seeds), the pretraining gain (seed by seed: median and min-max), the
cosine of adjacent learned position embeddings over the first 128 positions (how much order the model has
learned; none for rotary positions), and the pretrain job's wall time. Everything is written to
<workdir>/setting-arms.json.
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

TASK = "party"
TARGETS = (f"results/finetune/{TASK}/metrics.json", "results/eval/metrics.json", "results/eval/probes.json")
POSITIONS = "bert.embeddings.position_embeddings.weight"


def run_arm(workdir: Path, key: str, value) -> float:
    """Build the targets in `workdir` with the setting `key` (section.name) at `value`, on one core; the wall
    seconds."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "arm.yaml"
    section, name = key.split(".")
    config.write_text(yaml.safe_dump({section: {name: value}}))
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


def read_arm(workdir: Path, key: str, value, wall: float) -> dict:
    """What one arm's outputs say."""
    results = workdir / "results"
    held_out = json.loads((results / "eval" / "metrics.json").read_text())
    probes = json.loads((results / "eval" / "probes.json").read_text())
    scored = json.loads((results / "finetune" / TASK / "metrics.json").read_text())
    pretrain_s = float((workdir / "benchmarks" / "pretrain.tsv").read_text().splitlines()[1].split("\t")[0])
    return {
        key: value,
        "model_type": json.loads((results / "model" / "config.json").read_text())["model_type"],
        "mlm_loss": held_out["mlm_loss"],
        "masked_token_accuracy": held_out["masked_token_accuracy"],
        "probe_hits_top5": sum(bool(probe["hit_top5"]) for probe in probes["probes"]),
        "probes_with_answers": probes["answered"],
        "distinct_top1": probes["distinct_top1"],
        "macro_f1": {kind: scored["models"][kind]["summary"]["macro_f1"] for kind in ("pretrained", "random")},
        "gain": scored["pretraining_gain"],
        "adjacent_position_cosine": adjacent_cosine(results / "model"),
        "pretrain_s": pretrain_s,
        "wall_s": wall,
    }


def spread(summary: dict) -> str:
    return f"{summary['median']:.3f} ({summary['min']:.3f}-{summary['max']:.3f})"


def cosine(value: float | None) -> str:
    return "none (rotary)" if value is None else f"{value:.3f}"


def table(arms: list[dict], key: str) -> str:
    lines = [
        f"| {key} | held-out loss | masked accuracy | probe hits (top 5) | distinct top-1 "
        "| macro-F1 pretrained | macro-F1 random init | pretraining gain | adjacent-position cosine | pretrain s |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for arm in arms:
        lines.append(
            f"| {arm[key]} | {arm['mlm_loss']:.3f} | {arm['masked_token_accuracy']:.1%} "
            f"| {arm['probe_hits_top5']} of {arm['probes_with_answers']} | {arm['distinct_top1']} "
            f"| {spread(arm['macro_f1']['pretrained'])} | {spread(arm['macro_f1']['random'])} | {spread(arm['gain'])} "
            f"| {cosine(arm['adjacent_position_cosine'])} | {arm['pretrain_s']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--key", required=True, help="the setting to vary, as section.name: model.architecture")
    parser.add_argument("--values", required=True, help="its comma-separated values, each read as YAML")
    parser.add_argument("--workdir", type=Path, default=None, help="scratch directory (default: a new temporary one)")
    args = parser.parse_args()
    values = [yaml.safe_load(value) for value in args.values.split(",")]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-setting-arms-"))
    folders = [workdir / f"{args.key}-{value}" for value in values]
    with ThreadPoolExecutor(len(values)) as pool:
        walls = list(pool.map(run_arm, folders, [args.key] * len(values), values))
    arms = [read_arm(folder, args.key, value, wall) for folder, value, wall in zip(folders, values, walls, strict=True)]
    (workdir / "setting-arms.json").write_text(json.dumps(arms, indent=1) + "\n")
    print(table(arms, args.key))
    print(f"\n(everything in {workdir / 'setting-arms.json'})")


if __name__ == "__main__":
    main()
