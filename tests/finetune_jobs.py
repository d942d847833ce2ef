"""A fine-tuning job as the tests run it (the pretrained model's seed 1 at one rate of the grid, on the CPU), and a
task's summary as the workflow makes it (each model's rate chosen first)."""

import json
from pathlib import Path

from snakebert.files.json_views import as_json
from snakebert.finetune.chosen_file import write_chosen
from snakebert.finetune.job import FinetuneJob
from snakebert.finetune.metrics_file import read_task_metrics
from snakebert.finetune.rates import choose_rate
from snakebert.finetune.summary import summarize_task


def cpu_job(task_dir, model: str, folder, recipe: dict, **overrides) -> FinetuneJob:
    """The job of the prepared task in `task_dir`, its checkpoints in `folder`, `overrides` over its fields."""
    settings = {"task_dir": str(task_dir), "name": "pretrained", "kind": "pretrained", "source": model, "seed": 1,
                "recipe": recipe, "rate": 5e-3, "eval_batch_size": 8, "backend": "cpu",
                "checkpoints": str(folder / "checkpoints"), **overrides}  # fmt: skip
    return FinetuneJob(**settings)


def summarized(task_file, run_files, probe_files, grid, baseline_files, out) -> dict:
    """summarize_task as the workflow runs it: each model's rate chosen first from its search runs (choose_rate), in
    a chosen.json beside `out`; the results as the JSON it wrote."""
    searched: dict[str, list[str]] = {}
    for path in run_files:
        run = json.loads(Path(path).read_text())
        if run["search"]:
            searched.setdefault(run["model"], []).append(path)
    chosen = []
    for model, paths in searched.items():
        chosen.append(str(Path(out).parent / f"{Path(out).stem}-{model}-chosen.json"))
        write_chosen(chosen[-1], choose_rate(task_file, paths, grid))
    found = as_json(summarize_task(task_file, run_files, probe_files, grid, baseline_files, out, chosen))
    assert Path(out).read_text() == json.dumps(found, indent=1) + "\n"  # the results, as the file holds them
    assert as_json(read_task_metrics(out)) == found  # and as its readers read them back
    return found
