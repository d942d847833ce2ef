"""How much k-fold cross-validation narrows the intervals of the embedded task's verdicts, against more seeds, and what
each costs: the default config's pretraining, then the default task fine-tuned and probed through the real workflow
in four arms, one working directory: 3 and 5 seeds on the task's own split, then 3 and 5 seeds with
`split.folds: K` (validation carved out of the other folds as the task carves it, test_fraction 0).

    python bench/finetune_folds.py [--folds 5] [--workdir DIR]

An arm with 5 seeds reuses the runs of seeds 1 to 3 of the arm before it (the same files: seeds 4 and 5 are added),
so its snakemake wall time is the marginal time; its cost is the sum of its own jobs' seconds (benchmarks/: every
fine-tuning run and probe job it reports, whichever arm ran them). Per arm and protocol it prints the test size and,
for the pretraining gain and the comparison with TF-IDF, the difference, the 95% interval, its width and the verdict.
Everything it reads is also written to <workdir>/finetune-folds.json.
"""

import argparse
import copy
import csv
import json
import sys
import tempfile
from pathlib import Path

import yaml
from reference_model import REPO, git, snakemake

sys.path.insert(0, str(REPO))

from snakebert.config_validation import validate_config  # noqa: E402
from snakebert.finetune.plan import fold_segments, model_runs, task_recipe  # noqa: E402

TASK = "party"
MODELS = ("pretrained", "random")
COMPARED = {"random": "gain", "tfidf": "against TF-IDF"}


def arms(folds: int) -> dict[str, tuple[int, int | None]]:
    """{arm: (seeds, folds)} in the order they run (more seeds after fewer, so their runs are reused)."""
    return {"3 seeds": (3, None), "5 seeds": (5, None), f"3 seeds, {folds} folds": (3, folds),
            f"5 seeds, {folds} folds": (5, folds)}  # fmt: skip


def arm_config(default: dict, seeds: int, folds: int | None) -> dict:
    tasks = copy.deepcopy(default["finetune"]["tasks"])
    task = next(entry for entry in tasks if entry["name"] == TASK)
    if folds:
        task["split"] = {"validation_fraction": 0.15, "test_fraction": 0, "folds": folds}
    return {"finetune": {"seeds": seeds, "compare": [], "tasks": [task]}}


def job_seconds(path: Path) -> float:
    with open(path) as table:
        return float(next(csv.DictReader(table, delimiter="\t"))["s"])


def arm_cost(workdir: Path, default: dict, settings: dict) -> dict:
    """The summed seconds of the arm's fine-tuning runs and probe jobs, and how many of each."""
    filled = copy.deepcopy(default)
    filled["finetune"].update(copy.deepcopy(settings["finetune"]))
    validate_config(filled)
    finetune = filled["finetune"]
    task = finetune["tasks"][0]
    runs = [
        workdir / path.replace("results/", "benchmarks/", 1).replace("/runs/", "/").replace(".json", ".tsv")
        for model in MODELS
        for path in model_runs(task, finetune, task_recipe(finetune, task), model)
    ]
    probes = [
        workdir / f"benchmarks/finetune/{TASK}/{model}/{fold}linear_probe.tsv"
        for model in MODELS
        for fold in fold_segments(task)
    ]
    return {"finetune_runs": len(runs), "finetune_seconds": sum(map(job_seconds, runs)),
            "probe_jobs": len(probes), "probe_seconds": sum(map(job_seconds, probes))}  # fmt: skip


def verdicts(metrics: dict) -> dict:
    """Per protocol, each comparison's difference, interval, width and verdict."""
    found = {}
    for protocol, section in (("fine-tuned", metrics), ("linear probe", metrics["linear_probe"])):
        for name, label in COMPARED.items():
            compared = section["comparisons"][name]
            low, high = compared["interval"]
            found[f"{protocol}, {label}"] = {"difference": compared["difference"], "interval": [low, high],
                                             "width": high - low, "verdict": compared["verdict"]}  # fmt: skip
    return found


def table(results: dict) -> str:
    lines = [
        "| arm | test | fine-tuning runs, s | probe jobs, s | wall s | comparison | difference | 95% interval "
        "| width | verdict |",
        "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |",
    ]
    for arm, found in results.items():
        cost = found["cost"]
        first = (
            f"| {arm} | {found['groups']} speeches, {found['examples']:,} passages "
            f"| {cost['finetune_runs']}, {cost['finetune_seconds']:.0f} | {cost['probe_jobs']}, "
            f"{cost['probe_seconds']:.0f} | {found['wall_seconds']:.0f} "
        )
        for index, (name, compared) in enumerate(found["verdicts"].items()):
            low, high = compared["interval"]
            lead = first if index == 0 else "| | | | | "
            lines.append(
                f"{lead}| {name} | {compared['difference']:+.3f} | {low:+.3f} to {high:+.3f} "
                f"| {compared['width']:.3f} | {compared['verdict']} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--workdir", help="a folder to keep the runs in (default: a temporary one)")
    args = parser.parse_args()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-finetune-folds-")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    default = yaml.safe_load((REPO / "config/config.yaml").read_text())
    target = f"results/finetune/{TASK}/metrics.json"
    results = {}
    for arm, (seeds, folds) in arms(args.folds).items():
        settings = arm_config(default, seeds, folds)
        config = workdir / "bench-config.yaml"
        config.write_text(yaml.safe_dump(settings, sort_keys=False))
        log = workdir / f"snakemake-{seeds}-seeds-{folds or 1}-folds.log"
        seconds = snakemake(workdir, config, target, log)
        metrics = json.loads((workdir / target).read_text())
        results[arm] = {"seeds": seeds, "folds": folds, "wall_seconds": seconds,
                        "groups": metrics["bootstrap"]["groups"], "examples": metrics["splits"]["test"]["examples"],
                        "cost": arm_cost(workdir, default, settings), "verdicts": verdicts(metrics)}  # fmt: skip
        print(f"{arm}: {seconds:.0f} s", file=sys.stderr, flush=True)
    dirty = " (with uncommitted changes)" if git("status", "--short") else ""
    written = {"commit": git("rev-parse", "--short", "HEAD") + dirty, "arms": results}
    (workdir / "finetune-folds.json").write_text(json.dumps(written, indent=1) + "\n")
    print(f"commit {written['commit']}\n\n{table(results)}")


if __name__ == "__main__":
    main()
