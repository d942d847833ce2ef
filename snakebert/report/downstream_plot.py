"""The report's downstream figure: per task, every model's main score on the reported split, the median with its
min-max over seeds, the baselines beside them; a score that is undefined is written as such in its row."""

from ..errors import DataError
from ..files.json_files import read_json
from .figures import figure, save_svg

KIND_COLOURS = {"pretrained": "C0", "random_init": "C1", "reference": "C2", "baseline": "C7"}


def plot_downstream(metrics_files: list[str], out: str) -> None:
    if not metrics_files:
        raise DataError("no fine-tuning results to plot (finetune.tasks is empty)")
    tasks = [read_json(path, "fine-tuning results file") for path in metrics_files]
    fig, axes = figure(len(tasks), height=0.5 + 0.35 * max(len(task["models"]) for task in tasks))
    for axis, task in zip(axes, tasks, strict=True):
        metric = task["main_metric"]
        names = list(task["models"])[::-1]
        for row, name in enumerate(names):
            entry = task["models"][name]
            spread, colour = entry["summary"][metric], KIND_COLOURS[entry["kind"]]
            if spread is None:
                axis.text(0.02, row, "undefined", transform=axis.get_yaxis_transform(), va="center", color=colour)
                continue
            low, high = spread["median"] - spread["min"], spread["max"] - spread["median"]
            axis.errorbar(spread["median"], row, xerr=[[low], [high]], fmt="o", color=colour, capsize=3)
        axis.set_yticks(range(len(names)), names)
        axis.set(title=f"{task['task']}: {metric} on {task['reported_split']}", xlabel=metric)
        axis.grid(axis="x", linewidth=0.3)
    save_svg(fig, out)
