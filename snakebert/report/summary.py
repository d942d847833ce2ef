"""The report's summary table, in one HTML page: first each downstream task's answer to "did pretraining pay?" (and
adaptation's), one line per protocol, coloured by its verdict; then the data set, training throughput (against the
calibration's projection, when there is one), the evaluation, the fill-mask probes and each task's details."""

import html
from datetime import timedelta
from pathlib import Path

from ..data.manifest import read_manifest
from ..data.manifest_view import Manifest
from ..files.atomic import atomic_path
from ..finetune.metrics_file import read_task_metrics
from ..training.calibration_file import Calibration, read_calibration
from ..training.checkpoints import step_ranges
from ..training.eval_metrics import EvalMetrics, read_eval_metrics
from ..training.fill_mask_results import FillMaskResults, PromptResult, read_fill_mask_results
from ..training.training_metrics import TrainingMetrics, read_training_metrics
from .downstream import machine_text, task_rows, verdict_rows

STYLE = (
    "body{font-family:sans-serif;font-size:14px;max-width:1200px;margin:1em auto;color:#222}"
    "table{border-collapse:collapse;width:100%}th{text-align:left;padding:1.2em 0.5em 0.3em;font-size:15px;"
    "border-bottom:2px solid #8aa}td{padding:3px 0.5em;vertical-align:top;border-bottom:1px solid #eee}"
    "td:first-child{width:32%;color:#444}tr.yes td:last-child{color:#14662a;font-weight:bold}"
    "tr.no td:last-child{color:#a11;font-weight:bold}tr.open td:last-child{color:#555}"
)
VERDICTS = "Did it pay? (each task's answer, from its 95% interval: details below)"


def verdict_class(text: str) -> str:
    """The row class of a verdict line: `yes`, `no`, or `open` (not shown, not measured)."""
    word = text.split(":", 1)[0]
    return word if word in ("yes", "no") else "open"


def row_class(section: str, value: str) -> str:
    """A verdict row's class attribute (its colour); none for the others."""
    return f' class="{verdict_class(value)}"' if section == VERDICTS else ""


def duration(seconds: float) -> str:
    """`12.3 s` under a minute, `h:mm:ss` from there."""
    return f"{seconds:.1f} s" if seconds < 60 else str(timedelta(seconds=round(seconds)))


def calibration_rows(calibration: Calibration | None, training: TrainingMetrics) -> list[tuple[str, str]]:
    """The calibration's projection against the run, when it projected this launch."""
    if calibration is None:
        return []
    launch = (training.backend, training.world_size, training.global_batch_size, training.steps)
    if (calibration.backend, calibration.world_size, calibration.global_batch_size, calibration.max_steps) != launch:
        return [
            (
                "calibration",
                f"of another launch ({calibration.backend}, {calibration.world_size} ranks, global batch "
                f"{calibration.global_batch_size}, {calibration.max_steps:,} steps): not compared",
            )
        ]
    projected, actual = calibration.projected_train_seconds, training.train_runtime
    if actual is None:
        return [("calibrated throughput", f"{calibration.samples_per_second:,.1f} samples/s")]
    found = [
        ("calibrated throughput", f"{calibration.samples_per_second:,.1f} samples/s"),
        (
            "run time: projected / actual",
            f"{duration(projected)} / {duration(actual)} ({actual / projected:.2f}x the projection)",
        ),
    ]
    if training.resumed_from:
        found.append(("note", "the run was resumed: its actual time covers the last session only"))
    if calibration.projected_cost is not None:
        found.append(
            (
                "projected cost",
                f"{calibration.projected_cost:,.2f} ({calibration.projected_node_hours:,.2f} node-hours at "
                f"{calibration.price_per_node_hour:,} per node-hour)",
            )
        )
    return found


def timing_rows(training: TrainingMetrics) -> list[tuple[str, str]]:
    """The run time and throughput of the job that saved the model; unmeasured where it trained nothing (a finished
    run saved again from its last checkpoint, training/finished_run.py)."""
    if training.train_runtime is None:
        return [("run time, throughput", "not measured: the job that saved the model found the run finished")]
    return [
        ("run time", duration(training.train_runtime)),
        (
            "throughput",
            f"{training.train_samples_per_second:,.1f} samples/s, {training.train_tokens_per_second:,.0f} tokens/s",
        ),
    ]


def segment_steps(segments: tuple[dict, ...]) -> str:
    """How many jobs a run took (stops on a signal or at a deadline, then resumes), and the steps each trained."""
    return f"{len(segments)}: {step_ranges(segments, grouped=True)}"


def rows(
    manifest: Manifest, training: TrainingMetrics, evaluation: EvalMetrics, calibration: Calibration | None
) -> dict[str, list]:
    totals, split = manifest.totals, manifest.split
    sources = sorted({shard.source for shard in manifest.shards})
    return {
        "Data": [
            ("sources", ", ".join(sources)),
            ("shards", f"{len(manifest.shards):,}"),
            ("documents kept / read", f"{totals.docs:,} / {totals.docs_read:,}"),
            ("tokens", f"{totals.tokens:,} ({totals.kept_token_fraction:.3%} in blocks)"),
            (
                f"blocks of {manifest.block_size}: training / validation",
                f"{split.train_blocks:,} / {split.validation_blocks:,}",
            ),
            ("vocabulary", f"{manifest.vocab_size:,}"),
        ],
        "Pretraining": [
            ("backend, processes", f"{training.backend}, {training.world_size}"),
            ("steps x global batch", f"{training.steps:,} x {training.global_batch_size}"),
            *timing_rows(training),
            ("training loss, first / last logged", f"{training.initial_loss:.3f} / {training.final_loss:.3f}"),
            ("resumed from", training.resumed_from or "-"),
            ("jobs (segments): steps of each", segment_steps(training.segments)),
            *calibration_rows(calibration, training),
        ],
        "Evaluation (held-out blocks)": [
            (
                "blocks, masked tokens",
                f"{evaluation.validation_blocks:,}, {evaluation.masked_tokens:,}"
                f" ({evaluation.predictions_per_block} per block)",
            ),
            ("MLM loss, perplexity", f"{evaluation.mlm_loss:.3f}, {evaluation.perplexity:,.1f}"),
            ("masked-token accuracy", f"{evaluation.masked_token_accuracy:.2%}"),
            (
                "chance, most frequent token",
                f"{evaluation.chance_accuracy:.4%}, {evaluation.most_frequent_token_accuracy:.2%}",
            ),
            ("measured on", machine_text(evaluation.machine)),
        ],
    }


def probe_mark(probe: PromptResult) -> str:
    if probe.hit_top1 is None:
        return "no answer given"
    return "hit, top 1" if probe.hit_top1 else "hit, top 5" if probe.hit_top5 else "missed"


def share(hits: int, of: int) -> str:
    return f"{hits} of {of} ({hits / of:.0%})"


def fill_mask_rows(results: FillMaskResults) -> list[tuple[str, str]]:
    """Each prompt (its answers) with its top 5 and whether an answer is in it, then the hit rates and how many
    prompts share the most common top-1 token (a collapsed model answers one token to every prompt)."""
    found = [
        (
            f"{probe.prompt} ({', '.join(probe.answers) or '-'})",
            ", ".join(f"{guess.token!r} {guess.probability:.1%}" for guess in probe.predictions)
            + f": {probe_mark(probe)}",
        )
        for probe in results.probes
    ]
    answered = results.answered
    if answered:
        top1 = sum(probe.hit_top1 is True for probe in results.probes)
        top5 = sum(probe.hit_top5 is True for probe in results.probes)
        found.append(("answered in the top 1 / top 5", f"{share(top1, answered)} / {share(top5, answered)}"))
    common = results.most_common_top1
    found.append(
        (
            "top-1 tokens",
            f"{results.distinct_top1} distinct; {common.prompts} of {len(results.probes)} prompts answer "
            f"{common.token!r}",
        )
    )
    return found


def report_summary(
    manifest: str,
    model_dir: str,
    eval_metrics: str,
    out: str,
    calibration: str | None = None,
    probes: str | None = None,
    finetune: list[str] = (),
) -> None:
    """The summary page; `calibration`: `snakemake calibrate`'s projection, shown against the run if the file
    exists (it is not an input: the report never waits for a calibration); `probes`: the fill-mask probes, if any;
    `finetune`: each task's fine-tuning results."""
    training = read_training_metrics(model_dir)
    evaluation = read_eval_metrics(eval_metrics)
    projection = read_calibration(calibration) if calibration and Path(calibration).is_file() else None
    tasks = [read_task_metrics(path) for path in finetune]
    sections = {VERDICTS: [row for results in tasks for row in verdict_rows(results)]} if tasks else {}
    sections |= rows(read_manifest(manifest), training, evaluation, projection)
    if probes:
        sections["Fill-mask probes"] = fill_mask_rows(read_fill_mask_results(probes))
    for results in tasks:
        sections[f"Downstream: {results.task}"] = task_rows(results)
    body = "".join(
        f'<tr><th colspan="2">{html.escape(section)}</th></tr>'
        + "".join(
            f"<tr{row_class(section, value)}><td>{html.escape(name)}</td><td>{html.escape(value)}</td></tr>"
            for name, value in entries
        )
        for section, entries in sections.items()
    )
    page = f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{STYLE}</style></head>"
    page += f"<body><table>{body}</table></body></html>\n"
    with atomic_path(out) as tmp:
        tmp.write_text(page, encoding="utf-8")
