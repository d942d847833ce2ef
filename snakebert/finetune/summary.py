"""A task's results in one file: every model's runs on the reported split (test, or validation without one), their
median and min-max over seeds, the baselines beside them, and what pretraining bought: the pretrained model's main
score minus random initialisation's, seed by seed (both start from the same seed's classifier head and data order)."""

import statistics

from ..files.json_files import read_json, write_json

SPLIT_KEYS = ("validation", "test")


def spread(values: list[float | None]) -> dict | None:
    """Median, min and max of the defined values (None if none is)."""
    defined = [value for value in values if value is not None]
    if not defined:
        return None
    return {"median": statistics.median(defined), "min": min(defined), "max": max(defined), "runs": len(defined)}


def _summarised(runs: list[dict], task: dict) -> dict:
    split = task["reported_split"]
    return {metric: spread([run[split][metric] for run in runs]) for metric in task["metrics"]}


def _one_class_runs(runs: list[dict], task: dict) -> int | None:
    """How many runs answer one class to every example of the reported split (a collapsed classifier)."""
    if task["labels"] is None or any("classes_predicted" not in run for run in runs):
        return None
    return sum(run["classes_predicted"][task["reported_split"]] == 1 for run in runs)


def _gain(models: dict, task: dict) -> dict | None:
    if "pretrained" not in models or "random" not in models:
        return None
    metric, split = task["main_metric"], task["reported_split"]
    random = {run["seed"]: run[split][metric] for run in models["random"]["runs"]}
    differences = [
        run[split][metric] - random[run["seed"]]
        for run in models["pretrained"]["runs"]
        if run[split][metric] is not None and random.get(run["seed"]) is not None
    ]
    return {"metric": metric, **(spread(differences) or {"median": None, "min": None, "max": None, "runs": 0})}


def summarize_task(task_file: str, run_files: list[str], baselines_file: str, out: str) -> dict:
    task = read_json(task_file, "task file")
    models = {}
    for path in run_files:
        run = read_json(path, "fine-tuning result")
        entry = models.setdefault(run["model"], {"kind": run["kind"], "model": run["source"], "runs": []})
        entry["runs"].append(
            {key: run[key] for key in ("seed", "best_epoch", "classes_predicted", *SPLIT_KEYS) if key in run}
        )
    for name, scored in read_json(baselines_file, "baselines file").items():
        models[name] = {"kind": "baseline", "model": None, "runs": [{"seed": None, **scored}]}
    for entry in models.values():
        entry["summary"] = _summarised(entry["runs"], task)
        entry["one_class_runs"] = _one_class_runs(entry["runs"], task)
    summary = {
        **{key: task[key] for key in ("task", "type", "description", "problem", "labels", "main_metric", "metrics")},
        "reported_split": task["reported_split"],
        "splits": {
            split: {k: v for k, v in counts.items() if k != "sha256"} for split, counts in task["splits"].items()
        },
        "seeds": sorted({run["seed"] for run in models.get("pretrained", {"runs": []})["runs"]}),
        "models": models,
        "pretraining_gain": _gain(models, task),
    }
    write_json(out, summary)
    return summary
