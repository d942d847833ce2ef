"""The model card (results/cards/model/README.md): what the model is, its data, training and results, and how to load
it. Its `model-index`, which the Hub shows, holds the held-out MLM results and, per downstream task and metric, the
pretrained model's median over seeds."""

from pathlib import Path

from huggingface_hub import EvalResult, ModelCard, ModelCardData

from ..architectures import ARCHITECTURE_FACTS
from ..data.manifest import read_manifest
from ..data.manifest_view import Manifest
from ..files.json_files import read_json
from ..finetune.kinds import BASELINE, PRETRAINED, REFERENCE
from ..finetune.metrics_file import Spread, TaskMetrics, read_task_metrics
from ..finetune.problems import PROBLEMS
from ..model_folders import usable_positions
from ..report.downstream import answered_gains, comparison_rows, folds_text, gain_line, probe_method, rate_text
from ..report.wording import plural
from ..training.eval_metrics import EvalMetrics, read_eval_metrics
from ..training.training_metrics import MODEL_FOLDER, PhaseRecord, TrainingMetrics, read_training_metrics
from . import bullets, card_text, corpus_sources, markdown_table, section, write_card

PACKING = (
    "Every document is tokenized whole (`[CLS] ... [SEP]`, never truncated); the documents of a shard are concatenated "
    "in corpus order and cut into blocks, and each shard's last partial block is dropped."
)
DOWNSTREAM = (
    "The model fine-tuned on each task, beside the same architecture from random initialisation, reference models "
    "and non-neural baselines: the median over seeds, with the min-max in brackets."
)
USAGE = f"""```python
from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline

folder = "."  # this repository's files (huggingface_hub.snapshot_download), or the workflow's {MODEL_FOLDER}
tokenizer = AutoTokenizer.from_pretrained(folder)
model = AutoModelForMaskedLM.from_pretrained(folder)
fill_mask = pipeline("fill-mask", model=model, tokenizer=tokenizer)
print(fill_mask(f"the {{tokenizer.mask_token}} of the year."))
```"""


def mlm_metrics(evaluation: EvalMetrics) -> list[tuple[str, str, float]]:
    """The held-out MLM results the model index holds: (model-index metric type, metric name, value)."""
    return [
        ("loss", "MLM loss", evaluation.mlm_loss),
        ("perplexity", "perplexity", evaluation.perplexity),
        ("accuracy", "masked-token accuracy", evaluation.masked_token_accuracy),
    ]


def mlm_results(evaluation: EvalMetrics, sources: list[str]) -> list[EvalResult]:
    """The held-out MLM results, as the Hub's fill-mask task on the validation blocks."""
    return [
        EvalResult(
            task_type="fill-mask",
            task_name="Masked Language Modeling",
            dataset_type="-".join(sources),
            dataset_name=f"held-out blocks of {', '.join(sources)}",
            dataset_split="validation",
            metric_type=metric,
            metric_name=name,
            metric_value=value,
        )
        for metric, name, value in mlm_metrics(evaluation)
    ]


def downstream_results(task: TaskMetrics) -> list[EvalResult]:
    """The pretrained model's median over seeds of each metric of `task` (a fine-tuning metrics file)."""
    sections = [task.models, task.linear_probe.models if task.linear_probe else {}]  # probed, where none fine-tuned
    summary = next(m.summary for models in sections for m in models.values() if m.kind == PRETRAINED)
    return [
        EvalResult(
            task_type=PROBLEMS[task.problem].card_task,
            task_name=task.task,
            dataset_type=task.task,
            dataset_name=task.description,
            dataset_split=task.reported_split,
            metric_type=metric,
            metric_name=f"{metric} (median of {plural(len(task.seeds), 'seed')})",
            metric_value=summary[metric].median,
        )
        for metric in task.metrics
        if summary[metric] is not None
    ]


def spread(summary: Spread | None) -> str:
    """A median with its min-max over seeds (the median alone where they agree; undefined: a correlation of
    constant predictions)."""
    if summary is None:
        return "undefined"
    median, low, high = summary.median, summary.min, summary.max
    return f"{median:.3f}" if low == high else f"{median:.3f} ({low:.3f}–{high:.3f})"


def description(config: dict, lowercase: bool | None, sources: list[str], base: str | None) -> str:
    """What the model is: its architecture and size, how it was made (from scratch, or continued from `base`) and its
    vocabulary (trained here, or the base's kept)."""
    made = f"continued from `{base}`" if base else "pretrained from scratch"
    if base:
        vocabulary = f"the base's own vocabulary of {config['vocab_size']:,} tokens, kept as it is"
    else:
        vocabulary = f"a WordPiece vocabulary of {config['vocab_size']:,} tokens"
        vocabulary += f" ({'lowercased' if lowercase else 'cased'} text)"
    return (
        f"A {ARCHITECTURE_FACTS[config['model_type']].title} masked language model (`{config['architectures'][0]}`) "
        f"{made} by snakebert on "
        f"{', '.join(sources)}: {plural(config['num_hidden_layers'], 'layer')} of width {config['hidden_size']}, "
        f"{plural(config['num_attention_heads'], 'attention head')}, feed-forward size {config['intermediate_size']}, "
        f"at most {usable_positions(config)} positions, and {vocabulary}."
    )


def data_facts(manifest: Manifest, sources: list[str]) -> dict[str, str]:
    totals, split = manifest.totals, manifest.split
    return {
        "sources": f"{', '.join(sources)} ({plural(len(manifest.shards), 'shard')})",
        "documents": f"{totals.docs:,}",
        "tokens": f"{totals.tokens:,} ({totals.kept_token_fraction:.2%} of them in blocks)",
        "blocks": f"{totals.blocks:,} of {manifest.block_size} tokens: {split.train_blocks:,} for training, "
        f"{split.validation_blocks:,} held out",
    }


def phase_steps(phase: PhaseRecord) -> str:
    """One phase's steps and blocks, from the training metrics' record of it."""
    steps = phase.last_step - phase.first_step + 1
    return f"{steps:,} of {phase.global_batch_size} blocks of {phase.block_size}"


def training_facts(training: TrainingMetrics, settings: dict) -> dict[str, str]:
    phases = training.phases
    tokens = sum(
        (phase.last_step - phase.first_step + 1) * phase.global_batch_size * phase.block_size for phase in phases
    )
    split = settings["corruption"]
    predictions = ", ".join(f"{phase.predictions_per_block} per block of {phase.block_size}" for phase in phases)
    return {
        "steps": f"{', then '.join(phase_steps(phase) for phase in phases)} ({tokens:,} tokens)",
        "backend": f"{training.backend}, world size {training.world_size}",
        "learning rate": f"{settings['learning_rate']:g}, {settings['warmup_steps']:,} warmup steps, weight decay "
        f"{settings['weight_decay']:g}",
        "masking": f"{settings['mlm_probability']:.0%} of each block's tokens ({predictions}), "
        f"{split['mask']:.0%} of them replaced by `[MASK]`, {split['random']:.0%} by a random token",
        **({"history": f"the TensorBoard history of every segment of the run, in `{training.history}/` (the Hub "
            "shows it as the Training metrics tab)"} if training.history else {}),
    }  # fmt: skip


def mlm_facts(evaluation: EvalMetrics) -> dict[str, str]:
    return {
        "held-out blocks": f"{evaluation.validation_blocks:,}, {evaluation.predictions_per_block} masked "
        f"positions each, whatever training's masking ({evaluation.masked_tokens:,} masked tokens, a fixed seed)",
        "MLM loss": f"{evaluation.mlm_loss:.3f} (perplexity {evaluation.perplexity:,.1f})",
        "masked-token accuracy": f"{evaluation.masked_token_accuracy:.2%} (chance "
        f"{evaluation.chance_accuracy:.4%}, always the most frequent token "
        f"{evaluation.most_frequent_token_accuracy:.2%})",
    }


def task_text(task: TaskMetrics) -> str:
    """One downstream task: each model's median and min-max over seeds of each metric, each model's learning rate,
    whether pretraining paid and the pretrained model against each other model, with the 95% intervals (the report's
    lines)."""
    split = task.reported_split
    size = plural(task.splits[split]["examples"], PROBLEMS[task.problem].unit)
    about = (
        f"{task.description} ({task.problem}; {split} split of {size}{folds_text(task)}; "
        f"{'seed' if len(task.seeds) == 1 else 'seeds'} {', '.join(str(seed) for seed in task.seeds)})"
    )
    rows = [
        [f"{name} ({model.model})" if model.kind == REFERENCE else name, model.kind.replace("_", " ")]
        + [spread(model.summary[metric]) for metric in task.metrics]
        for name, model in task.models.items()
    ]
    table = markdown_table(["model", "kind", *task.metrics], rows)
    against = bullets(dict(comparison_rows(task)))
    parts = [f"### {task.task}", about, table]
    if task.learning_rates:
        parts += [f"Learning rate: {rate_text(task)}.", answers(task), against]
    if task.linear_probe:
        parts.append(probe_text(task))
    return "\n\n".join(part for part in parts if part)


def probe_text(task: TaskMetrics) -> str:
    """The linear probe's main scores and its answer, in a paragraph."""
    probe, metric = task.probed(), task.main_metric
    models = [
        f"{name} {spread(model.summary[metric])}" for name, model in probe.models.items() if model.kind != BASELINE
    ]
    return f"Linear probe ({probe_method(task)}), {metric}: {', '.join(models)}. {answers(probe)}"


def answers(results: TaskMetrics) -> str:
    """ "Did pretraining pay?" and, for a continued run, "did adaptation pay?", answered in sentences."""
    return " ".join(
        f"{question[0].upper()}{question[1:]} {gain_line(results, other)}."
        for other, question in answered_gains(results)
    )


def model_card(
    manifest: dict,
    config: dict,
    lowercase: bool | None,
    training: TrainingMetrics,
    settings: dict,
    evaluation: EvalMetrics,
    tasks: list[TaskMetrics],
) -> ModelCard:
    """The card of a model (`config`: its config.json; `settings`: the `pretrain` config) trained on `manifest`'s data
    set, with its held-out MLM `evaluation` and its downstream `tasks` (fine-tuning metrics files). A run continued
    from a Hub model names it as its `base_model` (a base folder has no Hub id to link)."""
    sources = corpus_sources(manifest)
    name = f"snakebert-{'-'.join(sources)}"
    base = training.init_from
    metadata = ModelCardData(
        base_model=base if base and not Path(base).is_dir() else None,
        library_name="transformers",
        pipeline_tag="fill-mask",
        tags=["bert", "fill-mask", "snakebert"],
        model_name=name,
        eval_results=mlm_results(evaluation, sources) + [found for task in tasks for found in downstream_results(task)],
    )
    downstream = [DOWNSTREAM, *map(task_text, tasks)] if tasks else ["No downstream task was run."]
    sections = [
        f"# {name}\n\n{description(config, lowercase, sources, base)}",
        section("Training data", bullets(data_facts(manifest, sources)), PACKING),
        section("Training", bullets(training_facts(training, settings))),
        section("Evaluation: masked language modelling", bullets(mlm_facts(evaluation))),
        section("Evaluation: downstream tasks", *downstream),
        section("How to use it (offline)", "With `HF_HUB_OFFLINE=1`, from a folder of this model's files:", USAGE),
    ]
    return ModelCard(card_text(metadata, sections))


def write_model_card(
    model_dir: str, manifest: str, eval_metrics: str, settings: dict, finetune: list[str], out: str
) -> None:
    """The card of the model in `model_dir` (its config, tokenizer and training metrics), written to `out`."""
    folder = Path(model_dir)
    card = model_card(
        read_manifest(manifest),
        read_json(str(folder / "config.json"), "model config"),
        read_json(str(folder / "tokenizer_config.json"), "tokenizer config").get("do_lower_case"),
        read_training_metrics(folder),
        settings,
        read_eval_metrics(eval_metrics),
        [read_task_metrics(path) for path in finetune],
    )
    write_card(card, out)
