"""The report's downstream results in words: per task, each model's scores on the reported split (median and
min-max over seeds), the baselines, each model's learning rate and how it was chosen, the line that answers "did
pretraining pay?" from the 95% interval of the gain, and the pretrained model against every other model, each with its
interval and verdict; then the same for the linear probe of each model's frozen features."""

from dataclasses import replace

from ..finetune.kinds import BASELINE, KIND_NAMES
from ..finetune.metrics_file import Comparison, Gain, Spread, TaskMetrics
from ..finetune.plan import BASE, RANDOM
from ..finetune.problems import PROBLEMS
from .wording import plural


def probe_method(results: TaskMetrics) -> str:
    """How the linear probe of the task's problem reads each frozen model."""
    reads = PROBLEMS[results.problem].probe_reads
    return (
        f"each model frozen, {reads}, its strength chosen on validation: what the weights hold, with no learning rate "
        "to get wrong"
    )


def score(spread: Spread | None, runs: int = 1) -> str:
    """A median and its min to max over the seeds whose score is defined, of the `runs` that have scores; undefined
    where no seed's is (Matthews' correlation of a classifier that answers one class, a correlation of a constant)."""
    if spread is None:
        return "undefined"
    text = f"{spread.median:.3f}"
    if spread.runs > 1 and spread.min != spread.max:
        text += f" ({spread.min:.3f} to {spread.max:.3f})"
    return text + (f" over {spread.runs} of {runs} seeds, undefined in the others" if spread.runs < runs else "")


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


def folds_text(results: TaskMetrics) -> str:
    """ ", 5 folds pooled" where each fold's test split was pooled (split.folds); nothing otherwise."""
    return f", {results.folds} folds pooled" if results.folds else ""


def split_size(results: TaskMetrics) -> str:
    """The groups and examples of the split the intervals resample."""
    split = results.reported_split
    examples = plural(results.splits[split]["examples"], PROBLEMS[results.problem].unit)
    return f"{plural(results.bootstrap.groups, f'{split} group')}, {examples}{folds_text(results)}"


def interval_text(compared: Comparison | Gain, results: TaskMetrics) -> str:
    """The 95% interval of a comparison and the test size it was resampled from (none: the verdict says why)."""
    if compared.interval is None:
        return f"no interval ({split_size(results)})"
    low, high = compared.interval
    return f"{results.bootstrap.level:.0%} interval {low:+.3f} to {high:+.3f} ({split_size(results)})"


def machine_text(found: dict) -> str:
    """A machine a result names (snakebert/machine.py): the CPU, its instruction set, any accelerator."""
    text = f"{found['cpu']} ({found['cpu_capability']})"
    return f"{found['accelerator']} on {text}" if found["accelerator"] else text


def rate_text(results: TaskMetrics) -> str:
    """Each fine-tuned model's learning rate, and how it was chosen on validation from the grid."""
    search = results.learning_rates
    rates = {name: entry.learning_rate for name, entry in results.models.items() if entry.kind != BASELINE}
    if len(search.grid) == 1:
        return f"{search.grid[0]:g} for every model (a grid of one rate)"
    searched, seeds = search.search_seeds, len(results.seeds)
    folds = f" and {results.folds} folds" if results.folds else ""
    text = (
        f"chosen per model on the median {search.chosen_on} {search.metric} over {plural(searched, 'seed')}"
        f"{folds} from {', '.join(f'{rate:g}' for rate in search.grid)}"
    )
    if seeds > searched:
        text += f" (then run with seeds {searched + 1} to {seeds})"
    text += ": " + ", ".join(f"{name} {rate:g}" for name, rate in rates.items())
    if results.reported_split == search.chosen_on:
        text += f"; chosen and reported on {search.chosen_on}, so the scores are optimistic"
    return text + diverged_text(results)


def diverged_text(results: TaskMetrics) -> str:
    """The rates at which a model's search runs diverged (never chosen), if any."""
    diverged = [
        f"{name} at {row.learning_rate:g} ({row.diverged} of {row.runs} runs)"
        for name, entry in results.models.items()
        for row in entry.search or ()
        if row.diverged
    ]
    return f"; diverged, so never chosen: {', '.join(diverged)}" if diverged else ""


GAINS = {  # each gain of the results, by the model it is measured against: its question and the difference it is
    RANDOM: ("did pretraining pay?", "pretrained minus random init"),
    BASE: ("did adaptation pay?", "adapted minus the base as it is"),
}


def gain_line(results: TaskMetrics, other: str = RANDOM) -> str:
    """ "Did pretraining pay?" (or adaptation, against `other`, the base): the verdict of the interval, the difference
    seed by seed and the interval."""
    gain = results.gains()[other]
    if gain is None or gain.median is None:
        return "not measured"
    return (
        f"{gain.verdict}: {GAINS[other][1]}, {gain.metric} {gain.median:+.3f} "
        f"({gain.min:+.3f} to {gain.max:+.3f} over {plural(gain.runs, 'seed')}, seed by seed); "
        f"{interval_text(gain, results)}{', seeds resampled too' if gain.interval else ''}"
    )


def answered_gains(results: TaskMetrics) -> list[tuple[str, str]]:
    """(other model, question) of each gain the results answer: pretraining's, and adaptation's for a continued
    run."""
    found = results.gains()
    return [(other, question) for other, (question, _) in GAINS.items() if other == RANDOM or found[other]]


def gain_rows(results: TaskMetrics, protocol: str) -> list[tuple[str, str]]:
    return [(f"{question} ({protocol})", gain_line(results, other)) for other, question in answered_gains(results)]


def protocols(results: TaskMetrics, fine_tuned: str, probed: str) -> list[tuple[str, TaskMetrics]]:
    """(label, results) of each protocol the results hold: fine-tuned (`fine_tuned` its label), then the linear
    probe's (`probed`)."""
    found = [(fine_tuned, results)] if results.learning_rates else []
    return found + ([(probed, results.probed())] if results.linear_probe else [])


def verdict_rows(results: TaskMetrics) -> list[tuple[str, str]]:
    """The task's answers, one line per question and protocol ("did pretraining pay?", and adaptation's for a
    continued run; fine-tuned, then probed): what the summary shows first."""
    return [
        (f"{results.task}: {question}", text)
        for protocol, found in protocols(results, "fine-tuned", "linear probe")
        for question, text in gain_rows(found, protocol)
    ]


def compared_others(results: TaskMetrics) -> dict[str, Comparison]:
    """The pretrained model against every other model but those of a gain (random initialisation, a base)."""
    return {name: compared for name, compared in results.comparisons.items() if name not in GAINS}


def comparison_rows(results: TaskMetrics, prefix: str = "") -> list[tuple[str, str]]:
    """The pretrained model against every other model but those of a gain line (random initialisation, a base); a
    difference of medians where either is undefined is said to be."""
    rows = []
    for name, compared in compared_others(results).items():
        difference = "undefined" if compared.difference is None else f"{compared.difference:+.3f}"
        rows.append(
            (
                f"{prefix}pretrained against {name}",
                f"{compared.verdict}: {compared.metric} {difference} (medians); {interval_text(compared, results)}",
            )
        )
    return rows


def model_rows(results: TaskMetrics, prefix: str = "") -> list[tuple[str, str]]:
    """Each model's scores on the reported split: median and min to max over seeds."""
    rows = []
    for name, entry in results.models.items():
        runs = len(entry.runs)
        details = [KIND_NAMES.get(entry.kind), plural(runs, "seed") if entry.kind != BASELINE else None]
        label = f"{prefix}{name} ({', '.join(detail for detail in details if detail)})"
        diverged = entry.diverged_runs or 0
        found = ", ".join(score(entry.summary[metric], runs - diverged) for metric in results.metrics)
        if entry.one_class_runs:
            found += f"; {entry.one_class_runs} of {plural(runs, 'seed')} answer one class to every example"
        if diverged:
            found += f"; {diverged} of {plural(runs, 'seed')} diverged (left out)"
        rows.append((label, found))
    return rows


def linear_probe_rows(results: TaskMetrics) -> list[tuple[str, str]]:
    """The linear probe's models (the baselines are the fine-tuning's rows), its answer and its comparisons."""
    probe = results.probed()
    models = {name: entry for name, entry in probe.models.items() if entry.kind != BASELINE}
    return [
        ("linear probe", probe_method(results)),
        *model_rows(replace(probe, models=models), "probe: "),
        *gain_rows(probe, "linear probe"),
        *comparison_rows(probe, "probe: "),
    ]


def task_rows(results: TaskMetrics) -> list[tuple[str, str]]:
    split = results.reported_split
    rows = [
        ("task", results.description),
        (
            "splits",
            "; ".join(f"{name}: {balance(counts)}" for name, counts in results.splits.items()) + folds_text(results),
        ),
        (f"scores on {split}", ", ".join(results.metrics) + " (median, min to max over seeds)"),
        *model_rows(results),
    ]
    if results.learning_rates:
        rows.append(("learning rate", rate_text(results)))
    rows.append(("measured on", "; ".join(map(machine_text, results.machines))))
    if results.learning_rates:
        rows += [*gain_rows(results, "fine-tuned"), *comparison_rows(results)]
    return rows + (linear_probe_rows(results) if results.linear_probe else [])
