"""A task's results in one file: every model's runs on the reported split (test, or validation without one), their
median and min-max over seeds, the baselines beside them, and how the pretrained model compares with every other
model: its main score minus theirs, with a 95% interval from a paired bootstrap over the split's groups and the seeds
(interval.py), and the verdict that interval gives. `pretraining_gain` is the comparison with random initialisation
(`adaptation_gain`, of a run continued from a base, the comparison with the base as it is),
with the difference seed by seed (both start from the same seed's classifier head and data order). The fine-tuned
runs, each model at the rate its search chose on validation (its chosen.json), are the top level; the linear
probe's runs (linear_probe.py) the same under `linear_probe`. With `split.folds`, each seed's runs over the folds are
pooled into one run on every fold's test split (folds.py) before any of this."""

import json
from dataclasses import fields
from pathlib import Path

from ..errors import DataError
from ..files.json_views import built
from .baselines_file import read_baselines
from .chosen_file import ChosenRate, read_chosen
from .examples import GROUP, LABEL
from .folds import pooled, pooled_runs, reported_table
from .interval import LEVEL, RESAMPLES, judged, resampled_scores
from .kinds import BASELINE
from .metrics import NO_SPREAD, spread
from .metrics_file import (
    BaselineRun,
    Bootstrap,
    Comparison,
    Gain,
    ModelResults,
    Protocol,
    RateSearch,
    ReportedRun,
    TaskMetrics,
    entry_of,
    protocol,
    task_metrics,
    write_task_metrics,
)
from .plan import BASE, OWN_MODELS, RANDOM
from .probe_file import read_probe
from .problems import PROBLEMS
from .run_file import RunResult, read_run
from .tag_metrics import READING
from .task_file import TaskFile, read_task_file

OURS = next(iter(OWN_MODELS))  # the pretrained model, which every other model is compared with


def _score(run: ReportedRun | BaselineRun, task: TaskFile, metric: str) -> float | None:
    """A run's score of `metric` on the reported split."""
    return getattr(run, task.reported_split)[metric]


def _summarised(runs: list, task: TaskFile) -> dict:
    return {metric: spread([_score(run, task, metric) for run in runs]) for metric in task.metrics}


def _one_class_runs(runs: list, task: TaskFile) -> int | None:
    """How many runs answer one class to every example of the reported split (a collapsed classifier)."""
    if not PROBLEMS[task.problem].classes or any(run.classes_predicted is None for run in runs):
        return None
    return sum(run.classes_predicted[task.reported_split] == 1 for run in runs)


def _model(task: TaskFile, runs: list, **entry) -> ModelResults:
    """A model's entry: `entry` (its kind, its folder or Hub id, ...), its runs, their summary over the seeds and how
    many answer one class."""
    found = dict(entry, runs=runs, summary=_summarised(runs, task), one_class_runs=_one_class_runs(runs, task))
    return built(ModelResults, found)


def _gain(
    models: dict[str, ModelResults], task: TaskFile, comparisons: dict[str, Comparison], other: str
) -> Gain | None:
    """The pretrained model's main score minus `other`'s seed by seed (the same seed: the same classifier head and data
    order), with the interval and verdict of their comparison; None without both."""
    if OURS not in models or other not in models:
        return None
    metric = task.main_metric
    theirs = {run.seed: _score(run, task, metric) for run in models[other].runs}
    differences = [
        _score(run, task, metric) - theirs[run.seed]
        for run in models[OURS].runs
        if _score(run, task, metric) is not None and theirs.get(run.seed) is not None
    ]
    compared = comparisons[other]
    by_seed = spread(differences) or NO_SPREAD
    return Gain(metric=metric, **by_seed, interval=compared.interval, verdict=compared.verdict)


def _median_difference(models: dict[str, ModelResults], metric: str, name: str) -> float | None:
    medians = [models[model].summary[metric] for model in (OURS, name)]
    return None if None in medians else medians[0].median - medians[1].median


def _comparisons(task: TaskFile, table, models: dict, predictions: dict[str, list]) -> dict[str, Comparison]:
    """The pretrained model's main score minus each other model's on the reported split: the difference of their
    medians over seeds, its 95% interval (a paired bootstrap over the split's groups and the seeds) and the verdict
    (interval.judged: none, and a verdict that says why, where the resamples cannot give one)."""
    if OURS not in predictions:
        return {}
    metric = task.main_metric
    split_groups = task.splits[task.reported_split]["groups"]
    truth, groups = table.column(LABEL).to_pylist(), table.column(GROUP).to_numpy(zero_copy_only=False)
    drawn, runs, score = PROBLEMS[task.problem].resampled(metric, truth, predictions, task)
    found = resampled_scores(score, drawn, groups, runs)
    return {
        name: Comparison(
            metric=metric,
            difference=_median_difference(models, metric, name),
            **judged(found[OURS], found[name], split_groups),
        )
        for name in predictions
        if name != OURS
    }


def _at_chosen_rate(runs: list[RunResult], chosen: ChosenRate) -> list[RunResult]:
    """The runs a model reports, those at the rate its search chose, by seed; a seed past the search at another rate is
    refused (it ran before the search's choice changed)."""
    rate = chosen.learning_rate
    for run in runs:
        if run.learning_rate != rate and not run.search:
            raise DataError(
                f"fine-tuning result of {run.model!r}, seed {run.seed}: it ran at the learning rate "
                f"{run.learning_rate:g}, but its model's search chooses {rate:g} (rerun it)"
            )
    return sorted((run for run in runs if run.learning_rate == rate), key=lambda run: run.seed)


def _search_settings(models: dict, grid: list[float], metric: str, folds: int | None) -> RateSearch:
    """The grid every model searched, the seeds each rate was tried with, and what chose each model's rate."""
    searched = [entry.search[0].runs // (folds or 1) for entry in models.values() if entry.kind != BASELINE]
    return RateSearch(tuple(grid), max(searched, default=0), "validation", metric)


def _by_model(results, machines: dict) -> dict[str, list]:
    """Each model's `results` (views of runs or probes), the models in the order they come; every machine they name,
    once, into `machines`."""
    by_model: dict[str, list] = {}
    for result in results:
        by_model.setdefault(result.model, []).append(result)
        machines.setdefault(json.dumps(result.machine, sort_keys=True), result.machine)
    return by_model


def _reported(results: list, task: TaskFile, truth, classes: bool = True) -> tuple[list[ReportedRun], list]:
    """The runs (or probes) as the summary lists them, seed by seed (pooled over the folds, with folds: the classes
    they predicted counted where `classes`), and their predictions."""
    if task.folds:
        found = pooled_runs(results, task, truth, classes)
        return [run for run, _ in found], [predicted for _, predicted in found]
    return [entry_of(ReportedRun, result) for result in results], [result.predictions for result in results]


def _fine_tuned(
    run_files: list[str], chosen_files: list[str], task: TaskFile, truth, machines: dict
) -> tuple[dict, dict]:
    """Each fine-tuned model's entry (its chosen rate, its search, its runs at that rate) and their predictions."""
    chosen = {found.model: found for found in map(read_chosen, chosen_files)}
    models, predictions = {}, {}
    for name, runs in _by_model(map(read_run, run_files), machines).items():
        if name not in chosen:
            raise DataError(f"finetune task {task.task!r}: no learning-rate choice of {name!r} in {chosen_files}")
        kept, predictions[name] = _reported(_at_chosen_rate(runs, chosen[name]), task, truth)
        models[name] = _model(
            task,
            kept,
            kind=runs[0].kind,
            model=runs[0].source,
            learning_rate=chosen[name].learning_rate,
            search=chosen[name].search,
            diverged_runs=sum(bool(run.diverged) for run in kept),
        )
    return models, predictions


def _probed(probe_files: list[str], task: TaskFile, truth, machines: dict) -> tuple[dict, dict]:
    """Each probed model's entry (its runs, seed by seed, with the strength validation chose) and their predictions."""
    models, predictions = {}, {}
    for name, probes in _by_model(map(read_probe, probe_files), machines).items():
        kept, predictions[name] = _reported(probes, task, truth, classes=False)
        models[name] = _model(task, kept, kind=probes[0].kind, model=probes[0].source)
    return models, predictions


def _baselines(baseline_files: list[str], task: TaskFile, truth) -> dict[str, tuple[BaselineRun, list]]:
    """Each baseline's result on the reported split (pooled over the folds, with folds), with its predictions."""
    fitted = [read_baselines(path) for path in baseline_files]
    if not task.folds:
        return {name: (entry_of(BaselineRun, found), found.predictions) for name, found in fitted[0].items()}
    return {name: pooled(None, [found[name] for found in fitted], task, truth, BaselineRun) for name in fitted[0]}


def _protocol(task: TaskFile, table, models: dict, predictions: dict, baselines: dict) -> Protocol:
    """One protocol's models beside the baselines, each summarised, the comparisons and the pretraining gain (`table`:
    the reported split, as reported_table gives it)."""
    models = {**models}
    predictions = {**predictions}
    for name, (run, predicted) in baselines.items():
        models[name] = _model(task, [run], kind=BASELINE, model=None)
        predictions[name] = [predicted]
    comparisons = _comparisons(task, table, models, predictions)
    return protocol(
        models=models,
        comparisons=comparisons,
        pretraining_gain=_gain(models, task, comparisons, RANDOM),
        adaptation_gain=_gain(models, task, comparisons, BASE),
    )


def summarize_task(
    task_file: str,
    run_files: list[str],
    probe_files: list[str],
    grid: list[float],
    baseline_files: list[str],
    out: str,
    chosen_files: list[str] = (),
) -> TaskMetrics:
    """The fine-tuning runs' summary at the top level (with the baselines), the linear probe's in `linear_probe`
    (`baseline_files`: one per fold, in fold order; one without folds; `chosen_files`: each fine-tuned model's
    chosen.json)."""
    task, machines = read_task_file(task_file), {}
    table = reported_table(Path(task_file).parent, task)
    truth = table.column(LABEL).to_pylist()
    baselines = _baselines(baseline_files, task, truth)
    tuned = _protocol(task, table, *_fine_tuned(run_files, list(chosen_files), task, truth, machines), baselines)
    probe = _protocol(task, table, *_probed(probe_files, task, truth, machines), baselines) if probe_files else None
    split = task.reported_split
    ours = [section.models[OURS] for section in (tuned, probe) if section and OURS in section.models]
    summary = task_metrics(
        task=task.task,
        type=task.type,
        description=task.description,
        problem=task.problem,
        labels=task.labels,
        main_metric=task.main_metric,
        metrics=task.metrics,
        reported_split=split,
        tag_scheme=task.tag_scheme or None,
        entities=READING if task.tag_scheme else None,
        splits={name: {k: v for k, v in counts.items() if k != "sha256"} for name, counts in task.splits.items()},
        folds=task.folds,
        seeds=sorted({run.seed for run in ours[0].runs} if ours else []),
        learning_rates=_search_settings(tuned.models, grid, task.main_metric, task.folds) if run_files else None,
        **{each.name: getattr(tuned, each.name) for each in fields(Protocol)},
        machines=list(machines.values()),
        bootstrap=Bootstrap(LEVEL, RESAMPLES, task.splits[split]["groups"]),
        linear_probe=probe,
    )
    write_task_metrics(out, summary)
    return summary
