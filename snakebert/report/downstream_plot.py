"""The report's downstream figure, per task: on top, every model's main score on the reported split, the median with
its min-max over seeds, the baselines beside them (a score that is undefined is written as such in its row); below,
what the verdicts rest on: each comparison of the pretrained model (the gains over random initialisation and a base,
and the lead over every other model), fine-tuned and probed, as its difference with its 95% interval against a line
at 0, coloured by its verdict (a comparison without an interval shows its difference alone, and why)."""

from ..errors import DataError
from ..finetune.kinds import BASELINE, PRETRAINED, RANDOM_INIT, REFERENCE
from ..finetune.metrics_file import Comparison, TaskMetrics, read_task_metrics
from .downstream import GAINS, compared_others, protocols
from .figures import figure, save_svg

KIND_COLOURS = {PRETRAINED: "C0", RANDOM_INIT: "C1", REFERENCE: "C2", BASELINE: "C7"}
VERDICT_COLOURS = {"yes": "#14662a", "no": "#a11"}  # any other verdict (not shown): grey
NOT_SHOWN = "#777"


def comparisons(results: TaskMetrics) -> list[tuple[str, Comparison]]:
    """(label, comparison) of each difference a verdict rests on: per protocol (fine-tuned, then probed) its gains
    (the difference seed by seed), then the pretrained model against every other model (the difference of
    medians)."""
    found = []
    for prefix, protocol in protocols(results, "", "probe: "):
        for other, gain in protocol.gains().items():
            if gain:
                found.append((f"{prefix}{GAINS[other][1]}", Comparison(gain.metric, gain.median, gain.interval,
                                                                        gain.verdict)))  # fmt: skip
        found += [
            (f"{prefix}pretrained minus {name}", compared) for name, compared in compared_others(protocol).items()
        ]
    return found


def plot_scores(axis, task: TaskMetrics) -> None:
    metric = task.main_metric
    names = list(task.models)[::-1]
    for row, name in enumerate(names):
        entry = task.models[name]
        spread, colour = entry.summary[metric], KIND_COLOURS[entry.kind]
        if spread is None:
            axis.text(0.02, row, "undefined", transform=axis.get_yaxis_transform(), va="center", color=colour)
            continue
        low, high = spread.median - spread.min, spread.max - spread.median
        axis.errorbar(spread.median, row, xerr=[[low], [high]], fmt="o", color=colour, capsize=3)
    axis.set_yticks(range(len(names)), names)
    axis.set(title=f"{task.task}: {metric} on {task.reported_split}", xlabel=metric)
    axis.grid(axis="x", linewidth=0.3)


def plot_differences(axis, task: TaskMetrics) -> None:
    found = comparisons(task)[::-1]
    axis.axvline(0, color="black", linewidth=0.8)
    for row, (_, compared) in enumerate(found):
        colour = VERDICT_COLOURS.get(compared.verdict, NOT_SHOWN)
        difference, interval = compared.difference, compared.interval
        if difference is None:
            axis.text(0.02, row, f"undefined: {compared.verdict}", transform=axis.get_yaxis_transform(),
                      va="center", color=colour, fontsize="small")  # fmt: skip
            continue
        if interval is None:
            axis.plot(difference, row, "o", color=colour, markerfacecolor="none")
        else:
            axis.errorbar(difference, row, xerr=[[difference - interval[0]], [interval[1] - difference]], fmt="o",
                          color=colour, capsize=3)  # fmt: skip
        axis.annotate(f" {compared.verdict}", (1, row), xycoords=("axes fraction", "data"), va="center",
                      fontsize="small", color=colour, annotation_clip=False)  # fmt: skip
    axis.set_yticks(range(len(found)), [label for label, _ in found])
    axis.set(title=f"{task.task}: difference in {task.main_metric}, {task.bootstrap.level:.0%} interval",
             xlabel=f"{task.main_metric} difference (hollow: no interval)")  # fmt: skip
    axis.grid(axis="x", linewidth=0.3)


def plot_downstream(metrics_files: list[str], out: str) -> None:
    if not metrics_files:
        raise DataError("no fine-tuning results to plot (finetune.tasks is empty)")
    tasks = [read_task_metrics(path) for path in metrics_files]
    rows = max(max(len(task.models), len(comparisons(task))) for task in tasks)
    fig, axes = figure(1, width=7.5, height=0.8 + 0.32 * rows, rows=2 * len(tasks))  # each task's two panels, stacked
    for index, task in enumerate(tasks):
        plot_scores(axes[2 * index], task)
        plot_differences(axes[2 * index + 1], task)
    save_svg(fig, out)
