"""What learning rate each model wants on the embedded task, and what a search costs: the default config's
pretraining, then the pretrained model and random initialisation fine-tuned at every rate of a grid with every seed,
through the real workflow (`learning_rate` as a list in the task's recipe).

    python bench/finetune_rates.py [--rates 3e-4,1e-3,3e-3,1e-2] [--seeds 3] [--workdir DIR]

For each model and rate it prints the median over seeds of the validation and test macro_f1 (test at every rate, which
the workflow itself never reports: here it shows whether validation's choice is test's), the best epochs and the jobs'
seconds. Then, per model, the rate validation chooses with every seed (what the workflow reported) and with seed 1 alone
(what `finetune.search_seeds: 1` chooses, whose other seeds then run at that rate), and the pretraining gain at the
chosen rates, seed by seed. Everything it reads is also written to <workdir>/finetune-rates.json.
"""

import argparse
import copy
import json
import statistics
import sys
import tempfile
from pathlib import Path

import yaml
from reference_model import REPO, git, job_costs, snakemake

sys.path.insert(0, str(REPO))

from snakebert.finetune.plan import rate_folder  # noqa: E402
from snakebert.finetune.rates import chosen_rate  # noqa: E402

MODELS = ("pretrained", "random")
METRIC = "macro_f1"


def runs_by_rate(workdir: Path, task: str, model: str, grid: list[float], seeds: int) -> dict[float, list[dict]]:
    folder = workdir / "results/finetune" / task / "runs" / model
    return {
        rate: [
            json.loads((folder / rate_folder(rate) / f"seed-{seed}.json").read_text()) for seed in range(1, seeds + 1)
        ]
        for rate in grid
    }


def median(runs: list[dict], split: str) -> float:
    return statistics.median(run[split][METRIC] for run in runs if run[split][METRIC] is not None)


def choices(runs: dict[float, list[dict]], grid: list[float]) -> dict[str, float]:
    """The rate validation chooses with every seed, and with seed 1 alone."""
    every = [run for found in runs.values() for run in found]
    first = [run for run in every if run["seed"] == 1]
    return {"every seed": chosen_rate(every, grid, METRIC), "seed 1": chosen_rate(first, grid, METRIC)}


def table(runs: dict[str, dict[float, list[dict]]], costs: dict[str, list[dict]]) -> str:
    lines = [
        "| model | rate | validation macro_f1 | test macro_f1 | best epochs | s per run |",
        "| --- | ---: | ---: | ---: | --- | ---: |",
    ]
    for model, by_rate in runs.items():
        for rate, found in by_rate.items():
            seconds = statistics.median(cost["seconds"] for cost in costs[model] if cost["rate"] == rate)
            epochs = ", ".join(f"{run['best_epoch']:g}" for run in found)
            lines.append(
                f"| {model} | {rate:g} | {median(found, 'validation'):.3f} | {median(found, 'test'):.3f} | {epochs} "
                f"| {seconds:.0f} |"
            )
    return "\n".join(lines)


def gains(runs: dict[str, dict[float, list[dict]]], chosen: dict[str, dict[str, float]]) -> str:
    lines = [
        "| chosen with | pretrained rate | random rate | gain on test, seed by seed | median |",
        "| --- | ---: | ---: | --- | ---: |",
    ]
    for policy in ("every seed", "seed 1"):
        rates = {model: chosen[model][policy] for model in MODELS}
        ours, theirs = (runs[model][rates[model]] for model in MODELS)
        by_seed = [mine["test"][METRIC] - other["test"][METRIC] for mine, other in zip(ours, theirs, strict=True)]
        shown, middle = ", ".join(f"{gain:+.3f}" for gain in by_seed), statistics.median(by_seed)
        lines.append(f"| {policy} | {rates['pretrained']:g} | {rates['random']:g} | {shown} | {middle:+.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", default="3e-4,1e-3,3e-3,1e-2", help="the grid, comma-separated")
    parser.add_argument("--task", default="party", help="a finetune task of config/config.yaml")
    parser.add_argument("--seeds", type=int, default=3, help="finetune.seeds (every rate is run with every seed)")
    parser.add_argument("--workdir", help="a folder to keep the runs in (default: a temporary one)")
    args = parser.parse_args()
    grid = [float(rate) for rate in args.rates.split(",")]
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-finetune-rates-")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    tasks = copy.deepcopy(yaml.safe_load((REPO / "config/config.yaml").read_text())["finetune"]["tasks"])
    for entry in tasks:
        if entry["name"] == args.task:
            entry["recipe"] = {**entry.get("recipe", {}), "learning_rate": grid}
    config = workdir / "bench-config.yaml"
    settings = {"finetune": {"seeds": args.seeds, "search_seeds": None, "compare": [], "tasks": tasks}}
    config.write_text(yaml.safe_dump(settings, sort_keys=False))
    pretraining = snakemake(workdir, config, "results/model", workdir / "snakemake-pretrain.log")
    print(f"pretrained ({pretraining:.0f} s); working directory {workdir}", file=sys.stderr, flush=True)
    target = f"results/finetune/{args.task}/metrics.json"
    seconds = snakemake(workdir, config, target, workdir / "snakemake-finetune.log")
    reported = json.loads((workdir / target).read_text())
    runs = {model: runs_by_rate(workdir, args.task, model, grid, args.seeds) for model in MODELS}
    costs = {model: job_costs(workdir, args.task, model) for model in MODELS}
    chosen = {model: choices(runs[model], grid) for model in MODELS}
    assert all(chosen[model]["every seed"] == reported["models"][model]["learning_rate"] for model in MODELS)
    dirty = " (with uncommitted changes)" if git("status", "--short") else ""
    found = {model: {str(rate): each for rate, each in by_rate.items()} for model, by_rate in runs.items()}
    result = {"commit": git("rev-parse", "--short", "HEAD") + dirty, "grid": grid, "seeds": args.seeds,
              "pretraining_seconds": pretraining, "finetune_seconds": seconds, "chosen": chosen, "costs": costs,
              "runs": found}  # fmt: skip
    (workdir / "finetune-rates.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"commit {result['commit']}; pretraining {pretraining:.0f} s; fine-tuning {seconds:.0f} s (snakemake)\n")
    print(table(runs, costs) + "\n\n" + gains(runs, chosen))


if __name__ == "__main__":
    main()
