"""The Hub cards of a trained run: made by the default target, read back by huggingface_hub with the run's numbers,
and the model card's code loads the model with no network."""

import json
import re
import subprocess
import sys

from helpers import snakemake_env
from huggingface_hub import DatasetCard, ModelCard


def read(path):
    return json.loads(path.read_text())


def test_the_cards_hold_the_runs_numbers(trained):
    card = ModelCard.load(trained / "results/cards/model/README.md")
    evaluation, training = (
        read(trained / "results/eval/metrics.json"),
        read(trained / "results/model/training_metrics.json"),
    )
    mlm = {
        result.metric_type: result.metric_value for result in card.data.eval_results if result.task_type == "fill-mask"
    }
    assert mlm == {
        "loss": evaluation["mlm_loss"],
        "perplexity": evaluation["perplexity"],
        "accuracy": evaluation["masked_token_accuracy"],
    }
    downstream = [
        (task["task"], metric, task["models"]["pretrained"]["summary"][metric]["median"])
        for task in map(read, sorted(trained.glob("results/finetune/*/metrics.json")))
        for metric in task["metrics"]
    ]
    found = [result for result in card.data.eval_results if result.task_type != "fill-mask"]
    assert sorted((result.task_name, result.metric_type, result.metric_value) for result in found) == sorted(downstream)
    steps = f"- **steps:** {training['steps']:,} of {training['global_batch_size']} blocks of 16 ("
    assert steps in card.text
    manifest = read(trained / "results/dataset/manifest.json")
    counts = DatasetCard.load(trained / "results/cards/dataset/README.md").data["snakebert"]
    assert (counts["shards"], counts["documents"], counts["tokens"], counts["blocks"]) == (
        len(manifest["shards"]),
        manifest["totals"]["docs"],
        manifest["totals"]["tokens"],
        manifest["totals"]["blocks"],
    )


def test_the_model_cards_code_loads_the_model_offline(trained):
    text = (trained / "results/cards/model/README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    env = {**snakemake_env(), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=trained / "results/model", env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("'score'") == 5
