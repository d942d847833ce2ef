"""The report's summary table: the data set, training throughput and the evaluation, in one HTML page."""

import html
import json
from pathlib import Path

from ..atomic import atomic_path
from ..data.manifest import read_manifest

STYLE = "body{font-family:sans-serif;font-size:14px}th{text-align:left;padding-top:1em}td{padding:2px 1em}"


def rows(manifest: dict, training: dict, evaluation: dict) -> dict[str, list[tuple[str, str]]]:
    totals, split = manifest["totals"], manifest["split"]
    sources = sorted({shard["source"] for shard in manifest["shards"]})
    return {
        "Data": [
            ("sources", ", ".join(sources)),
            ("shards", f"{len(manifest['shards']):,}"),
            ("documents kept / read", f"{totals['docs']:,} / {totals['docs_read']:,}"),
            ("tokens", f"{totals['tokens']:,} ({totals['kept_token_fraction']:.3%} in blocks)"),
            (
                f"blocks of {manifest['block_size']}: training / validation",
                f"{split['train_blocks']:,} / {split['validation_blocks']:,}",
            ),
            ("vocabulary", f"{manifest['vocab_size']:,}"),
        ],
        "Pretraining": [
            ("backend, processes", f"{training['backend']}, {training['world_size']}"),
            ("steps x global batch", f"{training['steps']:,} x {training['global_batch_size']}"),
            ("run time", f"{training['train_runtime']:,.0f} s"),
            (
                "throughput",
                f"{training['train_samples_per_second']:,.1f} samples/s, "
                f"{training['train_tokens_per_second']:,.0f} tokens/s",
            ),
            ("training loss, first / last logged", f"{training['initial_loss']:.3f} / {training['final_loss']:.3f}"),
            ("resumed from", training["resumed_from"] or "-"),
        ],
        "Evaluation (held-out blocks)": [
            (
                "blocks, masked tokens",
                f"{evaluation['validation_blocks']:,}, {evaluation['masked_tokens']:,}"
                f" ({evaluation['predictions_per_block']} per block)",
            ),
            ("MLM loss, perplexity", f"{evaluation['mlm_loss']:.3f}, {evaluation['perplexity']:,.1f}"),
            ("masked-token accuracy", f"{evaluation['masked_token_accuracy']:.2%}"),
            (
                "chance, most frequent token",
                f"{evaluation['chance_accuracy']:.4%}, {evaluation['most_frequent_token_accuracy']:.2%}",
            ),
        ],
    }


def report_summary(manifest: str, model_dir: str, eval_metrics: str, out: str) -> None:
    training = json.loads((Path(model_dir) / "training_metrics.json").read_text())
    evaluation = json.loads(Path(eval_metrics).read_text())
    body = "".join(
        f'<tr><th colspan="2">{html.escape(section)}</th></tr>'
        + "".join(f"<tr><td>{html.escape(name)}</td><td>{html.escape(value)}</td></tr>" for name, value in entries)
        for section, entries in rows(read_manifest(manifest), training, evaluation).items()
    )
    page = f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{STYLE}</style></head>"
    page += f"<body><table>{body}</table></body></html>\n"
    with atomic_path(out) as tmp:
        tmp.write_text(page, encoding="utf-8")
