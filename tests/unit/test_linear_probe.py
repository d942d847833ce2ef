"""The linear probe on a tiny saved BERT: features that are the mean over each example's own tokens (padding left
out), one result per seed (the same for a saved model, drawn again for random initialisation), the strength chosen on
validation, and byte-identical files from a second run."""

import json

import numpy as np
import pytest
import torch
import transformers
from finetune_data import pair_rows, write_csv
from helpers import save_tiny_model

from snakebert.errors import DataError
from snakebert.finetune.encoded import EncodedSplit
from snakebert.finetune.frozen_states import STRENGTHS
from snakebert.finetune.linear_probe import encoder, features, probe_model
from snakebert.finetune.prepare import prepare_task, read_task_dir
from snakebert.finetune.train import load_tokenizer


@pytest.fixture(scope="module")
def prepared(tiny_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("probe")
    model = save_tiny_model(tiny_data.tokenizer, root / "model")
    train = str(write_csv(root / "pairs.csv", pair_rows(80)))
    task = {"name": "pairs", "type": "files", "format": "csv", "train": train,
            "validation": None, "test": None, "text_column": "first", "text_pair_column": "second",
            "label_column": "label", "group_column": "doc", "problem": None, "metrics": None,
            "split": {"validation_fraction": 0.2, "test_fraction": 0.2, "seed": 0, "folds": None},
            "recipe": {}}  # fmt: skip
    prepare_task(task, str(root / "pairs"))
    return root, model


def test_each_examples_features_are_the_mean_over_its_own_tokens(prepared):
    root, model_dir = prepared
    _, tables = read_task_dir(str(root / "pairs"))
    tokenizer = load_tokenizer(model_dir, "pretrained")
    split = EncodedSplit(tables["test"], tokenizer, 32, False, 6)
    model = encoder("pretrained", model_dir, 1, "pretrained")
    found = features(model, split, 6, "cpu")
    assert found.shape == (split.count, model.config.hidden_size) and split.count % 6  # the last batch is padded
    row = tables["test"].slice(3, 1).to_pylist()[0]
    alone = tokenizer(row["text"], row["text_pair"], return_tensors="pt")  # no padding at all
    with torch.no_grad():
        expected = model(**alone).last_hidden_state[0].mean(0).numpy()
    assert np.allclose(found[3], expected, atol=1e-5)


def test_one_result_per_seed_the_same_for_a_saved_model_and_drawn_again_for_random_init(prepared):
    root, model_dir = prepared
    outs = {kind: [root / f"{kind}-{seed}.json" for seed in (1, 2)] for kind in ("pretrained", "random_init")}
    for kind, paths in outs.items():
        probe_model(str(root / "pairs"), kind, kind, model_dir, 32, 8, list(map(str, paths)))
    saved, drawn = ([json.loads(path.read_text()) for path in paths] for paths in outs.values())
    assert [run["seed"] for run in saved] == [1, 2] and saved[0]["protocol"] == "linear_probe"
    assert {key: value for key, value in saved[0].items() if key != "seed"} == {
        key: value for key, value in saved[1].items() if key != "seed"
    }
    assert saved[0]["strength"] in STRENGTHS and set(saved[0]["test"]) == {"macro_f1", "accuracy"}
    assert len(saved[0]["predictions"]) == read_task_dir(str(root / "pairs"))[0].splits["test"]["examples"]
    first, second = (encoder("random_init", model_dir, seed, "random") for seed in (1, 2))
    assert not torch.equal(first.embeddings.word_embeddings.weight, second.embeddings.word_embeddings.weight)
    again = root / "again.json"
    probe_model(str(root / "pairs"), "random_init", "random_init", model_dir, 32, 8, [str(again)])
    assert again.read_bytes() == outs["random_init"][0].read_bytes()
    assert drawn[0]["machine"]["backend"] == "cpu"


def test_a_model_whose_features_are_not_finite_is_refused_naming_it_and_the_split(prepared, tmp_path):
    """A model of nan weights (a pretraining that diverged): scikit-learn would fail on nan, or fit on inf."""
    root, model_dir = prepared
    model = transformers.AutoModelForMaskedLM.from_pretrained(model_dir)
    with torch.no_grad():
        model.bert.embeddings.LayerNorm.weight[0] = float("nan")
    model.save_pretrained(tmp_path / "broken")
    transformers.AutoTokenizer.from_pretrained(model_dir).save_pretrained(tmp_path / "broken")
    out = tmp_path / "probe-1.json"
    with pytest.raises(DataError, match=r"linear probe of finetune model 'pretrained' \(.*broken\): its features of "
                                        r"\d+ of \d+ train examples are not finite \(nan or inf\)"):  # fmt: skip
        probe_model(str(root / "pairs"), "pretrained", "pretrained", str(tmp_path / "broken"), 32, 8, [str(out)])
    assert not out.exists()
