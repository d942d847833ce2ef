"""The Hub cards: built with huggingface_hub from the run's files, read back by huggingface_hub with exactly their
numbers, the same bytes from the same inputs, and a damaged input named with no card left behind."""

import json
import re
import shutil

import pytest
from finetune_data import metrics_json
from helpers import EVAL_METRICS, TINY_TRAINING, TRAINING_METRICS, run_script
from huggingface_hub import DatasetCard, ModelCard

from snakebert.cards.dataset import IN_REPOSITORY, write_dataset_card
from snakebert.cards.model import write_model_card
from snakebert.config_defaults import schema_defaults
from snakebert.data.manifest_view import MANIFEST_FILE
from snakebert.files.settings_files import settings_file
from snakebert.finetune.interval import NONE_SCORED, too_few_groups
from snakebert.hub import UPLOADS, upload_plan

SETTINGS = {**schema_defaults("pretrain"), **TINY_TRAINING["pretrain"]}
MODEL_CONFIG = {"architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": 32,
                "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
                "max_position_embeddings": 32, "vocab_size": 200}  # fmt: skip


TASKS = [
    metrics_json("party", "classification", ["accuracy", "macro_f1"], [0.6123456789012345, 0.5876543210987654]),
    metrics_json("year", "regression", ["pearson", "spearman"], [0.4321, 0.39]),
]


@pytest.fixture
def run(tiny_data, tmp_path):
    """results/ of a trained run: the tiny data set, a model folder's metadata, the evaluation, two tasks."""
    results = tmp_path / "results"
    shutil.copytree(tiny_data.root / "results", results)
    model = results / "model"
    shutil.copytree(results / "tokenizer", model)
    for path, value in {
        model / "config.json": MODEL_CONFIG,
        model / "training_metrics.json": TRAINING_METRICS,
        results / "eval/metrics.json": EVAL_METRICS,
        **{results / f"finetune/{task['task']}/metrics.json": task for task in TASKS},
    }.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=1) + "\n")
    return results


def model_card_args(results, out) -> list[str]:
    return [str(results / "model"), str(results / "dataset/manifest.json"), str(results / "eval/metrics.json"),
            SETTINGS, [str(results / f"finetune/{task['task']}/metrics.json") for task in TASKS], str(out)]  # fmt: skip


def test_the_model_cards_model_index_holds_exactly_the_metrics_files_numbers(run):
    out = run / "cards/model/README.md"
    write_model_card(*model_card_args(run, out))
    card = ModelCard.load(out)
    found = [
        (result.task_type, result.task_name, result.metric_type, result.metric_value)
        for result in card.data.eval_results
    ]
    mlm = [
        ("fill-mask", "Masked Language Modeling", metric, EVAL_METRICS[key])
        for key, metric in {"mlm_loss": "loss", "perplexity": "perplexity", "masked_token_accuracy": "accuracy"}.items()
    ]
    downstream = [
        ("text-classification", task["task"], metric, task["models"]["pretrained"]["summary"][metric]["median"])
        for task in TASKS
        for metric in task["metrics"]
    ]
    assert found == mlm + downstream
    assert {result.dataset_type for result in card.data.eval_results} == {"texts", "party", "year"}
    assert {result.dataset_split for result in card.data.eval_results} == {"validation", "test"}
    assert card.data.pipeline_tag == "fill-mask" and card.data.library_name == "transformers"
    assert card.data.model_name == "snakebert-texts"


def test_the_model_cards_text_says_what_was_trained_and_how_well(run):
    out = run / "cards/model/README.md"
    write_model_card(*model_card_args(run, out))
    text = ModelCard.load(out).text
    manifest = json.loads((run / "dataset/manifest.json").read_text())
    assert "A BERT masked language model (`BertForMaskedLM`) pretrained from scratch" in text
    assert "1 layer of width 32, 2 attention heads, feed-forward size 64" in text
    assert "vocabulary of 200 tokens (lowercased text)" in text
    assert f"- **documents:** {manifest['totals']['docs']}" in text
    assert (
        f"{manifest['split']['train_blocks']} for training, {manifest['split']['validation_blocks']} held out" in text
    )
    steps = "- **steps:** 40 of 16 blocks of 8, then 20 of 8 blocks of 16 (7,680 tokens)"
    assert steps in text and "- **backend:** cpu, world size 1" in text
    assert f"- **learning rate:** {SETTINGS['learning_rate']:g}, {SETTINGS['warmup_steps']} warmup steps" in text
    assert "15% of each block's tokens (1 per block of 8, 2 per block of 16), 80% of them replaced by" in text
    assert "4, 2 masked positions each, whatever training's masking" in text
    assert "- **history:** the TensorBoard history of every segment of the run, in `runs/` (the Hub shows" in text
    assert "- **MLM loss:** 4.912 (perplexity 136.0)" in text and "12.50%" in text
    assert "| model | kind | accuracy | macro_f1 |" in text
    assert "| pretrained | pretrained | 0.612 (0.592–0.632) | 0.588 (0.568–0.608) |" in text
    assert "| random | random init | 0.490 (0.470–0.510) |" in text
    assert "| bert-base (bert-base-uncased) | reference | 0.674 (0.654–0.694) |" in text
    assert "| majority | baseline | 0.306 | 0.294 |" in text
    assert "the party of a passage of a speech (classification; test split of 40 examples; seeds 1, 2, 3)" in text
    assert (  # every seed gained, but the interval over the test's groups holds 0
        "Did pretraining pay? not shown at this test size: pretrained minus random init, macro_f1 +0.070 "
        "(+0.030 to +0.100 over 3 seeds, seed by seed); 95% interval -0.020 to +0.150 (5 test groups, 40 examples), "
        "seeds resampled too." in text
    )
    assert "- **pretrained against bert-base:** no: macro_f1 -0.100 (medians); 95% interval -0.200 to -0.010" in text
    assert (
        "Linear probe (each model frozen, a logistic regression on its mean-pooled last hidden states, its strength "
        "chosen on validation: what the weights hold, with no learning rate to get wrong), macro_f1: pretrained 0.705 "
        "(0.685–0.725), random 0.529 (0.509–0.549). Did pretraining pay? "
        "yes: pretrained minus random init, macro_f1 "
        "+0.180" in text
    )
    assert (
        "Learning rate: chosen per model on the median validation macro_f1 over 1 seed from 0.001, 0.003, 0.01 "
        "(then run with seeds 2 to 3): pretrained 0.003, random 0.01, bert-base 0.001." in text
    )
    assert "against majority:** not shown at this test size: macro_f1 +0.300 (medians); no interval" in text
    assert "AutoModelForMaskedLM.from_pretrained(folder)" in text and 'pipeline("fill-mask"' in text


def test_the_model_card_names_the_architecture_trained(run):
    config = run / "model/config.json"
    config.write_text(
        json.dumps({**MODEL_CONFIG, "architectures": ["ModernBertForMaskedLM"], "model_type": "modernbert"})
    )
    out = run / "cards/model/README.md"
    write_model_card(*model_card_args(run, out))
    assert "A ModernBERT masked language model (`ModernBertForMaskedLM`) pretrained" in ModelCard.load(out).text


def test_undefined_scores_and_a_split_too_small_to_judge_are_said_so(run):
    """The majority class's Matthews correlation divides by zero (one class answered); the test split is one example:
    "undefined" and the reason there is no interval, never 0.000 and never a crash."""
    task = metrics_json("party", "classification", ["accuracy", "matthews"], [0.6, 0.2])
    task["models"]["majority"]["summary"]["matthews"] = None
    task["splits"]["test"] = {**task["splits"]["test"], "examples": 1, "groups": 1}
    task["bootstrap"]["groups"] = 1
    too_few = {"interval": None, "verdict": too_few_groups(1)}
    task["comparisons"] = {
        "random": {"metric": "matthews", "difference": 0.04, **too_few},
        "majority": {"metric": "matthews", "difference": None, "interval": None, "verdict": NONE_SCORED},
    }
    task["pretraining_gain"] |= too_few
    task["linear_probe"] = None
    (run / "finetune/party/metrics.json").write_text(json.dumps(task))
    out = run / "cards/model/README.md"
    write_model_card(*model_card_args(run, out)[:4], [str(run / "finetune/party/metrics.json")], str(out))
    card = ModelCard.load(out)
    assert [result.metric_type for result in card.data.eval_results[3:]] == ["accuracy", "matthews"]
    assert "| majority | baseline | 0.300 | undefined |" in card.text
    assert (
        "- **pretrained against majority:** not shown: no resample scored both models: matthews undefined (medians); "
        "no interval (1 test group, 1 example)" in card.text
    )
    assert (
        "Did pretraining pay? not shown: 1 test group, fewer than 6 to resample: pretrained minus random init, "
        "matthews +0.070 (+0.030 to +0.100 over 3 seeds, seed by seed); no interval (1 test group, 1 example)."
        in card.text
    )


def test_a_model_card_without_downstream_tasks_says_so(run):
    out = run / "cards/model/README.md"
    write_model_card(*model_card_args(run, out)[:4], [], str(out))
    card = ModelCard.load(out)
    assert [result.task_type for result in card.data.eval_results] == ["fill-mask"] * 3
    assert "No downstream task was run." in card.text


def test_the_dataset_card_holds_the_manifests_counts(run):
    out = run / "cards/dataset/README.md"
    write_dataset_card(str(run / "dataset/manifest.json"), str(out))
    card = DatasetCard.load(out)
    manifest = json.loads((run / "dataset/manifest.json").read_text())
    counts, totals, split = card.data["snakebert"], manifest["totals"], manifest["split"]
    assert counts == {
        "shards": len(manifest["shards"]),
        "documents": totals["docs"],
        "tokens": totals["tokens"],
        "dropped_tokens": totals["dropped_tokens"],
        "blocks": totals["blocks"],
        "block_size": 16,
        "dtype": "uint16",
        "column": "input_ids",
        "vocab_size": manifest["vocab_size"],
        "validation_fraction": 0.1,
        "validation_blocks": split["validation_blocks"],
        "train_blocks": split["train_blocks"],
        "shuffle_seed": 34,
        "provenance": manifest["provenance"],
    }
    assert card.data.size_categories == ["n<1K"] and card.data.task_categories == ["fill-mask"]
    for shard in manifest["shards"]:
        assert f"| `{shard['path']}` | texts | {shard['docs']} | {shard['tokens']} | {shard['blocks']} |" in card.text
    removed = card.text.split("## What was removed and why")[1].split("##")[0]
    assert f"{totals['docs_read']} documents read, {totals['docs']} kept." in removed
    assert "(`clean.near_dedup`) | 0 | 0.00% |" in removed
    share = totals["duplicates"] / totals["docs_read"]
    assert f"an exact repeat of an earlier document (`clean.dedup`) | {totals['duplicates']} | {share:.2%} |" in removed


def test_the_dataset_cards_code_reads_the_blocks_and_the_validation_split(run, monkeypatch):
    write_dataset_card(str(run / "dataset/manifest.json"), str(run / "cards/dataset/README.md"))
    code = re.search(r"```python\n(.*?)```", (run / "cards/dataset/README.md").read_text(), re.S).group(1)
    monkeypatch.chdir(run)
    found = {}
    exec(code, found)
    manifest = json.loads((run / "dataset/manifest.json").read_text())
    assert found["blocks"].num_rows == manifest["totals"]["blocks"]
    assert found["validation"].num_rows == manifest["split"]["validation_blocks"]
    first = manifest["split"]["validation"][0]
    assert found["validation"][0]["input_ids"] == found["shards"][first["shard"]][first["start"]]["input_ids"]
    assert len(found["blocks"][0]["input_ids"]) == 16


def test_the_same_inputs_give_byte_identical_cards_without_dates(run):
    for name in ("first", "second"):
        write_model_card(*model_card_args(run, run / f"{name}/model.md"))
        write_dataset_card(str(run / "dataset/manifest.json"), str(run / f"{name}/dataset.md"))
    for card in ("model.md", "dataset.md"):
        text = (run / "first" / card).read_bytes()
        assert text == (run / "second" / card).read_bytes()
        assert not re.search(rb"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}:\d{2}", text), card


@pytest.mark.parametrize(
    ("damaged", "what"),
    [("eval/metrics.json", "evaluation metrics file"), ("model/training_metrics.json", "training metrics file"),
     ("finetune/year/metrics.json", "fine-tuning metrics file"), ("dataset/manifest.json", "manifest")],
)  # fmt: skip
def test_a_damaged_input_is_named_and_leaves_no_card(run, damaged, what):
    (run / damaged).write_text('{"mlm_loss": 4.9, "perpl')
    done = run_script(
        "model_card.py", "--model", str(run / "model"), "--manifest", str(run / "dataset/manifest.json"),
        "--eval-metrics", str(run / "eval/metrics.json"), "--pretrain", settings_file(SETTINGS, run),
        "--out", str(run / "cards/model/README.md"), "--", *(str(path) for path in run.glob("finetune/*/metrics.json")),
    )  # fmt: skip
    assert done.returncode == 1
    assert f"error: {run / damaged}: not a readable {what} (" in done.stderr and "Traceback" not in done.stderr
    assert not list(run.rglob("*README.md*"))


def test_a_damaged_manifest_is_named_and_leaves_no_dataset_card(run):
    (run / "dataset/manifest.json").write_text("{")
    done = run_script(
        "dataset_card.py", "--manifest", str(run / "dataset/manifest.json"), "--out", str(run / "card.md")
    )
    assert done.returncode == 1
    assert f"error: {run / 'dataset/manifest.json'}: not a readable manifest (" in done.stderr
    assert "Traceback" not in done.stderr and not list(run.glob("*card.md*"))


def test_the_data_set_card_names_the_manifest_where_the_upload_puts_it():
    assert upload_plan(UPLOADS["dataset"], [MANIFEST_FILE]) == {IN_REPOSITORY: MANIFEST_FILE}
