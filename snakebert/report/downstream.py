"""The report's downstream results in words: per task, each model's scores on the reported split (median and
min-max over seeds), the baselines, each model's learning rate and how it was chosen, the line that answers "did
pretraining pay?" from the 95% interval of the gain, and the pretrained model against every other model, each with its
interval and verdict; then the same for the linear probe of each model's frozen features."""

from ..finetune.kinds import BASELINE, KIND_NAMES
from ..finetune.problems import PROBLEMS
from .wording import plural


def probe_method(results: dict) -> str:
    """How the linear probe of the task's problem reads each frozen model."""
    reads = PROBLEMS[results["problem"]].probe_reads
    return (
        f"each model frozen, {reads}, its strength chosen on validation: what the weights hold, with no learning rate "
        "to get wrong"
    )


def score(spread: dict | None, runs: int = 1) -> str:
    """A median and its min to max over the seeds whose score is defined, of the `runs` that have scores; undefined
    where no seed's is (Matthews' correlation of a classifier that answers one class, a correlation of a constant)."""
    if spread is None:
        return "undefined"
    text = f"{spread['median']:.3f}"
    if spread["runs"] > 1 and spread["min"] != spread["max"]:
        text += f" ({spread['min']:.3f} to {spread['max']:.3f})"
    return text + (f" over {spread['runs']} of {runs} seeds, undefined in the others" if spread["runs"] < runs else "")


def balance(counts: dict) -> str:
    """A split's size and labels, and what prepare_task counted in it that a reader should know."""
    counted = (("empty_texts", "without text"), ("also_in_train", "also in train"))
    caveats = "".join(f", {counts[key]:,} {what}" for key, what in counted if counts.get(key))
    if "tag_counts" in counts:
        tags = ", ".join(f"{name} {count / counts['words']:.0%}" for name, count in counts["tag_counts"].items())
        words = f"{counts['words']:,} words in {counts['groups']:,} groups"
        return f"{counts['examples']:,} sentences, {words} ({tags}){caveats}"
    if "questions" in counts:
        unanswerable = f", {counts['unanswerable']:,} without an answer" if counts["unanswerable"] else ""
        return f"{counts['questions']:,} questions in {counts['groups']:,} groups{unanswerable}{caveats}"
    if "class_counts" not in counts:
        return f"{counts['examples']:,} examples, label mean {counts['label_mean']:.3g}{caveats}"
    classes = ", ".join(f"{name} {count / counts['examples']:.0%}" for name, count in counts["class_counts"].items())
    return f"{counts['examples']:,} examples in {counts['groups']:,} groups ({classes}){caveats}"


def folds_text(results: dict) -> str:
    """ ", 5 folds pooled" where each fold's test split was pooled (split.folds); nothing otherwise."""
    return f", {results['folds']} folds pooled" if results["folds"] else ""


def split_size(results: dict) -> str:
    """The groups and examples of the split the intervals resample."""
    split = results["reported_split"]
    examples = plural(results["splits"][split]["examples"], PROBLEMS[results["problem"]].unit)
    return f"{plural(results['bootstrap']['groups'], f'{split} group')}, {examples}{folds_text(results)}"


def interval_text(compared: dict, results: dict) -> str:
    """The 95% interval of a comparison and the test size it was resampled from (none: the verdict says why)."""
    if compared["interval"] is None:
        return f"no interval ({split_size(results)})"
    low, high = compared["interval"]
    return f"{results['bootstrap']['level']:.0%} interval {low:+.3f} to {high:+.3f} ({split_size(results)})"


def machine_text(found: dict) -> str:
    """A machine a result names (snakebert/machine.py): the CPU, its instruction set, any accelerator."""
    text = f"{found['cpu']} ({found['cpu_capability']})"
    return f"{found['accelerator']} on {text}" if found["accelerator"] else text


def rate_text(results: dict) -> str:
    """Each fine-tuned model's learning rate, and how it was chosen on validation from the grid."""
    search = results["learning_rates"]
    rates = {name: entry["learning_rate"] for name, entry in results["models"].items() if entry["kind"] != BASELINE}
    if len(search["grid"]) == 1:
        return f"{search['grid'][0]:g} for every model (a grid of one rate)"
    searched, seeds = search["search_seeds"], len(results["seeds"])
    folds = f" and {results['folds']} folds" if results["folds"] else ""
    text = (
        f"chosen per model on the median {search['chosen_on']} {search['metric']} over {plural(searched, 'seed')}"
        f"{folds} from {', '.join(f'{rate:g}' for rate in search['grid'])}"
    )
    if seeds > searched:
        text += f" (then run with seeds {searched + 1} to {seeds})"
    text += ": " + ", ".join(f"{name} {rate:g}" for name, rate in rates.items())
    if results["reported_split"] == search["chosen_on"]:
        text += f"; chosen and reported on {search['chosen_on']}, so the scores are optimistic"
    return text + diverged_text(results)


def diverged_text(results: dict) -> str:
    """The rates at which a model's search runs diverged (never chosen), if any."""
    diverged = [
        f"{name} at {row['learning_rate']:g} ({row['diverged']} of {row['runs']} runs)"
        for name, entry in results["models"].items()
        for row in entry.get("search", [])
        if row.get("diverged")
    ]
    return f"; diverged, so never chosen: {', '.join(diverged)}" if diverged else ""


GAINS = {  # each gain of metrics.json: its question and the difference it is
    "pretraining_gain": ("did pretraining pay?", "pretrained minus random init", "random"),
    "adaptation_gain": ("did adaptation pay?", "adapted minus the base as it is", "base"),
}


def gain_line(results: dict, key: str = "pretraining_gain") -> str:
    """ "Did pretraining pay?" (or adaptation, `key`): the verdict of the interval, the difference seed by seed and the
    interval."""
    gain = results.get(key)
    if gain is None or gain["median"] is None:
        return "not measured"
    return (
        f"{gain['verdict']}: {GAINS[key][1]}, {gain['metric']} {gain['median']:+.3f} "
        f"({gain['min']:+.3f} to {gain['max']:+.3f} over {gain['runs']} seeds, seed by seed); "
        f"{interval_text(gain, results)}{', seeds resampled too' if gain['interval'] else ''}"
    )


def answered_gains(results: dict) -> list[tuple[str, str]]:
    """(key, question) of each gain the results answer: pretraining's, and adaptation's for a continued run."""
    return [(key, question) for key, (question, _, _) in GAINS.items() if key == "pretraining_gain" or results.get(key)]


def gain_rows(results: dict, protocol: str) -> list[tuple[str, str]]:
    return [(f"{question} ({protocol})", gain_line(results, key)) for key, question in answered_gains(results)]


def verdict_rows(results: dict) -> list[tuple[str, str]]:
    """The task's answers, one line per question and protocol ("did pretraining pay?", and adaptation's for a
    continued run; fine-tuned, then probed): what the summary shows first."""
    protocols = [("fine-tuned", results)] if results["learning_rates"] else []
    protocols += [("linear probe", {**results, **results["linear_probe"]})] if results["linear_probe"] else []
    return [
        (f"{results['task']}: {question}", text)
        for protocol, found in protocols
        for question, text in gain_rows(found, protocol)
    ]


def comparison_rows(results: dict, prefix: str = "") -> list[tuple[str, str]]:
    """The pretrained model against every other model but those of a gain line (random initialisation, a base); a
    difference of medians where either is undefined is said to be."""
    rows = []
    for name, compared in results["comparisons"].items():
        if name in [other for _, _, other in GAINS.values()]:
            continue
        difference = "undefined" if compared["difference"] is None else f"{compared['difference']:+.3f}"
        rows.append(
            (
                f"{prefix}pretrained against {name}",
                f"{compared['verdict']}: {compared['metric']} {difference} (medians); "
                f"{interval_text(compared, results)}",
            )
        )
    return rows


def model_rows(results: dict, prefix: str = "") -> list[tuple[str, str]]:
    """Each model's scores on the reported split: median and min to max over seeds."""
    rows = []
    for name, entry in results["models"].items():
        runs = len(entry["runs"])
        details = [KIND_NAMES.get(entry["kind"]), f"{runs} seeds" if entry["kind"] != BASELINE else None]
        label = f"{prefix}{name} ({', '.join(detail for detail in details if detail)})"
        diverged = entry.get("diverged_runs", 0)
        found = ", ".join(score(entry["summary"][metric], runs - diverged) for metric in results["metrics"])
        if entry["one_class_runs"]:
            found += f"; {entry['one_class_runs']} of {runs} seeds answer one class to every example"
        if diverged:
            found += f"; {diverged} of {runs} seeds diverged (left out)"
        rows.append((label, found))
    return rows


def linear_probe_rows(results: dict) -> list[tuple[str, str]]:
    """The linear probe's models (the baselines are the fine-tuning's rows), its answer and its comparisons."""
    probe = {**results, **results["linear_probe"]}
    models = {name: entry for name, entry in probe["models"].items() if entry["kind"] != BASELINE}
    return [
        ("linear probe", probe_method(results)),
        *model_rows({**probe, "models": models}, "probe: "),
        *gain_rows(probe, "linear probe"),
        *comparison_rows(probe, "probe: "),
    ]


def task_rows(results: dict) -> list[tuple[str, str]]:
    split = results["reported_split"]
    rows = [
        ("task", results["description"]),
        (
            "splits",
            "; ".join(f"{name}: {balance(counts)}" for name, counts in results["splits"].items()) + folds_text(results),
        ),
        (f"scores on {split}", ", ".join(results["metrics"]) + " (median, min to max over seeds)"),
        *model_rows(results),
    ]
    if results["learning_rates"]:
        rows.append(("learning rate", rate_text(results)))
    rows.append(("measured on", "; ".join(map(machine_text, results["machines"]))))
    if results["learning_rates"]:
        rows += [*gain_rows(results, "fine-tuned"), *comparison_rows(results)]
    return rows + (linear_probe_rows(results) if results["linear_probe"] else [])
