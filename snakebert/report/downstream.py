"""The report's downstream results in words: per task, each model's scores on the reported split (median and
min-max over seeds), the baselines, and the line that answers "did pretraining pay?"."""

KIND_NAMES = {"random_init": "random init", "reference": "reference", "baseline": "baseline"}  # pretrained: its name


def score(spread: dict | None) -> str:
    if spread is None:
        return "undefined"
    if spread["runs"] == 1:
        return f"{spread['median']:.3f}"
    return f"{spread['median']:.3f} ({spread['min']:.3f} to {spread['max']:.3f})"


def balance(counts: dict) -> str:
    if "class_counts" not in counts:
        return f"{counts['examples']:,} examples, label mean {counts['label_mean']:.3g}"
    classes = ", ".join(f"{name} {count / counts['examples']:.0%}" for name, count in counts["class_counts"].items())
    return f"{counts['examples']:,} examples in {counts['groups']:,} groups ({classes})"


def gain_line(results: dict) -> str:
    gain = results["pretraining_gain"]
    if gain is None or gain["median"] is None:
        return "not measured"
    verdict = "yes" if gain["min"] > 0 else "no" if gain["max"] < 0 else "not clearly"
    return (
        f"{verdict}: pretrained minus random init, {gain['metric']} {gain['median']:+.3f} "
        f"({gain['min']:+.3f} to {gain['max']:+.3f} over {gain['runs']} seeds)"
    )


def task_rows(results: dict) -> list[tuple[str, str]]:
    split = results["reported_split"]
    rows = [
        ("task", results["description"]),
        ("splits", "; ".join(f"{name}: {balance(counts)}" for name, counts in results["splits"].items())),
        (f"scores on {split}", ", ".join(results["metrics"]) + " (median, min to max over seeds)"),
    ]
    for name, entry in results["models"].items():
        runs = len(entry["runs"])
        details = [KIND_NAMES.get(entry["kind"]), f"{runs} seeds" if entry["kind"] != "baseline" else None]
        label = f"{name} ({', '.join(detail for detail in details if detail)})"
        found = ", ".join(score(entry["summary"][metric]) for metric in results["metrics"])
        if entry["one_class_runs"]:
            found += f"; {entry['one_class_runs']} of {runs} seeds answer one class to every example"
        rows.append((label, found))
    rows.append(("did pretraining pay?", gain_line(results)))
    return rows
