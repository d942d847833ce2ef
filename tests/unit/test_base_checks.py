"""A base is checked whole before any job runs (snakebert/model_folders.py): a continued run's base, the tokenizer's
base and each compared model, read from their files alone when the workflow is parsed: a folder (not a file, a broken
link, a loop, nor a name that is no Hub id) outside the workflow's outputs; a config of values the model can take;
weights whole, of the shapes the config asks for (safetensors, sharded, or torch's zip format read without torch or
running its pickle); a tokenizer that holds a vocabulary fitting the embeddings and asks for no remote code. The
pretraining job refuses what the parse cannot see (a Hub base), naming the weights file, and starts nothing but the
masked LM head fresh."""

import json
import os
import pickle
import shutil
import zipfile

import pytest
import torch
import yaml
from continued_configs import continued_config
from helpers import REPO
from safetensors.torch import load_file, save_file
from transformers import (
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    BertModel,
    ModernBertConfig,
    ModernBertForMaskedLM,
    RobertaConfig,
    RobertaForMaskedLM,
    XLMRobertaConfig,
    XLMRobertaForMaskedLM,
)

from snakebert.config_checks import config_problems
from snakebert.config_validation import validate_config
from snakebert.errors import DataError
from snakebert.finetune.tasks import read_task
from snakebert.training.base_model import job_model
from snakebert.training.model import ARCHITECTURES, masked_positions_model

NO_VOCABULARY = shutil.ignore_patterns("tokenizer.json", "vocab.txt")  # a tokenizer_config.json left alone
TINY = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64}


def edited(base: str, folder, **changes) -> str:
    """A copy of `base` in `folder` with `changes` over its config.json."""
    shutil.copytree(base, folder)
    found = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**found, **changes}))
    return str(folder)


def refusal(name: str) -> str:
    (problem,) = config_problems(continued_config(name))
    assert problem.startswith(f"config model.init_from {name!r}: "), problem
    return problem.removeprefix(f"config model.init_from {name!r}: ")


def test_a_base_in_the_workflows_outputs_is_refused_naming_both_paths(base, tmp_path, monkeypatch):
    """A project that holds a trained model: a rerun would delete results/model (pretrain's output) before training
    from it. Refused however it is named: as it is, through a link, and before it exists (a name that would otherwise
    be taken for a Hub id)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(base, "results/model")
    os.symlink(tmp_path / "results/model", "linked")
    for name, shown, folder in [
        ("results/model", "results/model", "results"),
        ("linked", f"linked (a link to {tmp_path / 'results/model'})", "results"),
        ("checkpoints/base", "checkpoints/base", "checkpoints"),
    ]:
        assert config_problems(continued_config(name)) == [
            f"config model.init_from: {shown} is in the workflow's own {folder}/, which the workflow writes: a rerun "
            f"deletes what lies there before it rebuilds it, and the input with it; copy it out of {folder}/ and name "
            "the copy"
        ]


def test_every_other_input_a_config_names_in_the_workflows_outputs_is_refused_at_parse_and_by_its_job(
    base, tmp_path, monkeypatch
):
    """The tokenizer's base, a compared model, a `files` task's file and a Hub source's local folder: each refused
    when the workflow is read; the task's file again as its job opens it."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(base, "results/model")
    (tmp_path / "logs/data").mkdir(parents=True)
    (tmp_path / "results/pairs.csv").write_text("text,label\na,0\nb,1\n")
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    task = {"name": "pairs", "type": "files", "format": "csv", "train": "results/pairs.csv", "text_column": "text",
            "label_column": "label"}  # fmt: skip
    config["tokenizer"] = {**config.get("tokenizer", {}), "base": "results/tokenizer"}
    config["finetune"] = {**config.get("finetune", {}), "compare": [{"name": "old", "model": "results/model"}]}
    config["finetune"]["tasks"] = [task]
    config["sources"] = [{"name": "logged", "type": "hub", "path": "logs/data"}]
    validate_config(config)
    problems = config_problems(config)
    assert [problem.split(":")[0] for problem in problems] == [
        "config tokenizer.base",
        "config finetune.compare[0].model",
        "config finetune.tasks[0].train",
        "config sources[0].path",
    ]
    assert "results/pairs.csv is in the workflow's own results/" in problems[2]
    with pytest.raises(DataError, match=r"finetune task 'pairs': results/pairs.csv is in the workflow's own results/"):
        read_task(config["finetune"]["tasks"][0])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hidden_size": "32"}, 'hidden_size is "32", not a whole number of at least 1'),
        ({"hidden_size": -32}, "hidden_size is -32, not a whole number of at least 1"),
        ({"num_attention_heads": 0}, "num_attention_heads is 0, not a whole number of at least 1"),
        ({"max_position_embeddings": None}, "max_position_embeddings is null, not a whole number of at least 1"),
        ({"num_hidden_layers": 1.0}, "num_hidden_layers is 1.0, not a whole number of at least 1"),
        ({"layer_norm_eps": 0}, "layer_norm_eps is 0, not a number above 0"),
        ({"hidden_dropout_prob": 2}, "hidden_dropout_prob is 2, not null or a number from 0 to 1"),
        ({"pad_token_id": 200}, "pad_token_id 200 is not below vocab_size 200"),
        ({"num_attention_heads": 3}, "hidden_size 32 is not a multiple of num_attention_heads 3"),
        ({"vocab_size": None}, "vocab_size is null, not a whole number of at least 1"),
    ],
)
def test_a_base_config_value_the_model_cannot_take_is_refused_naming_the_file_and_the_key(
    base, tmp_path, change, message
):
    """At parse for a folder, by the job for a Hub base (the same check on the config it reads): never a TypeError,
    a ZeroDivisionError or the model's own failure later."""
    folder = edited(base, tmp_path / "base", **change)
    assert refusal(folder).startswith(f"in its {folder}/config.json, {message}")
    with pytest.raises(DataError, match=f"model.init_from '{folder}': in its config.json, {message}"):
        job_model(continued_config(folder)["model"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_hidden_layers": 2}, "says num_hidden_layers 2, but its weights ({weights}) hold 1 layer: a layer"),
        (  # counted against the weights, not listed: a list of 10**9 layer numbers would take gigabytes
            {"num_hidden_layers": 10**9},
            "says num_hidden_layers 1000000000, but its weights ({weights}) hold 1 layer: a layer",
        ),
        (
            {"intermediate_size": 128},
            "bert.encoder.layer.0.intermediate.dense.weight is [64, 32], but its {config} "
            "(intermediate_size 128, hidden_size 32) makes it [128, 32]",
        ),  # fmt: skip
        (
            {"vocab_size": 300},
            "bert.embeddings.word_embeddings.weight is [200, 32], but its {config} (vocab_size 300, "
            "hidden_size 32) makes it [300, 32]",
        ),  # fmt: skip
        (
            {"max_position_embeddings": 64},
            "bert.embeddings.position_embeddings.weight is [32, 32], but its {config} "
            "(max_position_embeddings 64, hidden_size 32) makes it [64, 32]",
        ),  # fmt: skip
    ],
)
def test_weights_of_other_shapes_than_the_config_asks_for_are_refused_from_their_headers(
    base, tmp_path, change, message
):
    """2 layers in config.json and 1 in the weights would start half the encoder random; a width or a vocabulary
    that differ would end in a size mismatch after the data half."""
    folder = edited(base, tmp_path / "base", **change)
    weights, config = f"{folder}/model.safetensors", f"{folder}/config.json"
    assert message.format(weights=weights, config=config) in refusal(folder)


def test_weights_that_are_missing_damaged_or_short_of_a_layer_are_refused_naming_the_file(base, tmp_path):
    truncated = shutil.copytree(base, tmp_path / "truncated")
    whole = (truncated / "model.safetensors").read_bytes()
    (truncated / "model.safetensors").write_bytes(whole[: len(whole) // 2])
    assert refusal(str(truncated)).startswith(f"{truncated}/model.safetensors is not a whole weights file (its tensors "
                                              "take")  # fmt: skip
    garbage = shutil.copytree(base, tmp_path / "garbage")
    (garbage / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all}")
    assert "its header is not JSON" in refusal(str(garbage))
    weightless = shutil.copytree(base, tmp_path / "weightless")
    (weightless / "model.safetensors").unlink()
    assert refusal(str(weightless)).startswith(f"{weightless} holds no weights (none of model.safetensors, ")
    holed = shutil.copytree(base, tmp_path / "holed")
    weights = load_file(holed / "model.safetensors")
    save_file({name: value for name, value in weights.items() if ".attention.self.key." not in name},
              holed / "model.safetensors", metadata={"format": "pt"})  # fmt: skip
    assert "have no bert.encoder.layer.0.attention.self.key.weight and 1 more, which its" in refusal(str(holed))


def test_sharded_and_torch_zip_weights_are_read_from_their_headers_as_torch_reads_them(base, tmp_path):
    model = BertForMaskedLM.from_pretrained(base)
    sharded = shutil.copytree(base, tmp_path / "sharded", ignore=shutil.ignore_patterns("model.safetensors"))
    model.save_pretrained(sharded, max_shard_size="40KB")
    assert len(list(sharded.glob("model-*.safetensors"))) > 1 and config_problems(continued_config(str(sharded))) == []
    sorted(sharded.glob("model-*.safetensors"))[-1].unlink()
    assert "model.safetensors.index.json is not a whole weights file (it names the shard" in refusal(str(sharded))
    pickled = shutil.copytree(base, tmp_path / "pickled", ignore=shutil.ignore_patterns("model.safetensors"))
    state = model.state_dict()
    state["a view"] = torch.arange(10.0)[2:8].view(2, 3)  # a tensor inside a larger storage
    torch.save(state, pickled / "pytorch_model.bin", _use_new_zipfile_serialization=False)
    assert "it is in torch's legacy format (before torch 1.6), which is not read here; load it" in refusal(str(pickled))
    torch.save(state, pickled / "pytorch_model.bin")
    assert config_problems(continued_config(str(pickled))) == []
    from snakebert.files.torch_zip_shapes import torch_zip_shapes  # here: the checks above run on code without it

    shapes = {name: tuple(value.shape) for name, value in state.items()}
    assert torch_zip_shapes(pickled / "pytorch_model.bin") == shapes


class Planted:
    """A pickled object whose unpickling would create a file (`open(path, 'w')`)."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return open, (str(self.path), "w")


def test_a_pickle_that_asks_for_anything_but_tensors_is_refused_and_nothing_of_it_runs(base, tmp_path):
    planted = shutil.copytree(base, tmp_path / "planted", ignore=shutil.ignore_patterns("model.safetensors"))
    ran = tmp_path / "pickle-ran"
    with zipfile.ZipFile(planted / "pytorch_model.bin", "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps({"weight": Planted(ran)}, protocol=2))
    assert f"{planted}/pytorch_model.bin: its pickle asks for io.open, which is never run" in refusal(str(planted))
    assert not ran.exists()


def test_a_tokenizer_without_a_vocabulary_or_that_does_not_fit_the_embeddings_is_refused(base, tmp_path):
    """A tokenizer_config.json alone loads as a 5-token tokenizer (manifest vocab_size 5, loss 0, eval NaN)."""
    settings_only = shutil.copytree(base, tmp_path / "settings-only", ignore=NO_VOCABULARY)
    assert refusal(str(settings_only)).startswith("its tokenizer files hold no vocabulary (none of tokenizer.json, ")
    specials_only = shutil.copytree(base, tmp_path / "specials-only")
    spec = json.loads((specials_only / "tokenizer.json").read_text())
    spec["model"]["vocab"] = {entry["content"]: entry["id"] for entry in spec["added_tokens"]}
    (specials_only / "tokenizer.json").write_text(json.dumps(spec))
    assert refusal(str(specials_only)).startswith("its tokenizer files hold no vocabulary")
    tokenizer = AutoTokenizer.from_pretrained(base)
    for rows, message in [(150, "holds 200 ids, more than the 150 rows"), (401, "holds 200 ids, fewer than half the "
                                                                                "401 rows")]:  # fmt: skip
        folder = tmp_path / f"rows-{rows}"
        BertForMaskedLM(BertConfig(vocab_size=rows, max_position_embeddings=32, **TINY)).save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        assert refusal(str(folder)) == (
            f"its tokenizer ({folder}/tokenizer.json) {message} of the model's embeddings (vocab_size): it is not the "
            "model's own; save the model's tokenizer into the folder"
        )


def test_remote_code_in_a_tokenizer_config_is_refused_for_a_base_a_tokenizer_base_and_a_compared_model(base, tmp_path):
    """It would be copied into results/tokenizer and the published model, as config.json's is refused."""
    folder = shutil.copytree(base, tmp_path / "remote")
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(
        json.dumps({**settings, "auto_map": {"AutoTokenizer": ["t.T", None]}})
    )
    asked = f"its {folder}/tokenizer_config.json asks for remote code (auto_map), which is never run"
    assert refusal(str(folder)).startswith(asked)
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    config["tokenizer"] = {**config.get("tokenizer", {}), "base": str(folder)}
    config["finetune"] = {**config.get("finetune", {}), "compare": [{"name": "remote", "model": str(folder)}]}
    validate_config(config)
    assert config_problems(config) == [
        f"config tokenizer.base {str(folder)!r}: {asked}, nor carried into the run's outputs; use a model whose files "
        "ask for none",
    ]
    config["tokenizer"]["base"] = None
    assert config_problems(config)[0].startswith(f"config finetune.compare[0].model {str(folder)!r}: {asked}")


def test_a_file_a_link_to_nothing_a_loop_or_a_name_that_is_no_hub_id_is_refused(base, tmp_path):
    """Not taken for a Hub id, which the job would then fail to download; a symlink loop gave a RuntimeError."""
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    expected = {
        f"{base}/config.json": "is a file, not a model folder",
        str(tmp_path / "loop"): "is a symlink that leads to no folder (broken, or a loop), not a model folder",
        str(tmp_path / "dangling"): "is a symlink that leads to no folder (broken, or a loop), not a model folder",
        str(
            tmp_path / "no" / "such"
        ): f"is neither a folder (there is none at {tmp_path / 'no' / 'such'}) nor a Hub id",
    }
    for name, message in expected.items():
        (problem,) = config_problems(continued_config(name))
        assert problem.startswith(f"config model.init_from {name!r} {message}"), problem
    assert config_problems(continued_config("someone/some-bert")) == []  # a Hub id: read by the job
    assert config_problems(continued_config("bert\0base"))[
        0
    ] == (  # the one reported; a ValueError from os.path otherwise
        "config model.init_from: 'bert\\x00base' holds a NUL character, which no file name or Hub id can; fix it"
    )


def test_the_weights_table_is_each_architectures_own_and_a_base_of_each_passes(base, roberta_base, tmp_path):
    """encoder_weights.ENCODERS against transformers' own models (a masked LM's every weight, each shape), and bases
    that pass: RoBERTa, ModernBERT, an encoder alone (no prefix, a pooler) and an old checkpoint's LayerNorm names."""
    from snakebert.encoder_weights import ENCODERS, own_name, size  # here: the other tests run on code without it

    dims = {**TINY, "num_hidden_layers": 2, "vocab_size": 400, "max_position_embeddings": 34}
    special = {"pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2}
    models = {"bert": BertForMaskedLM(BertConfig(**dims)),
              "roberta": RobertaForMaskedLM(RobertaConfig(**dims, **special, type_vocab_size=1)),
              "xlm-roberta": XLMRobertaForMaskedLM(XLMRobertaConfig(**dims, **special)),
              "modernbert": ModernBertForMaskedLM(ModernBertConfig(**dims, **special, cls_token_id=0, sep_token_id=2,
                                                                   norm_bias=True, mlp_bias=True))}  # fmt: skip
    assert set(models) == set(ENCODERS) == set(ARCHITECTURES)
    for architecture, model in models.items():
        found = json.loads(model.config.to_json_string())
        prefix, weights = ENCODERS[architecture]
        parts = [(name, shape) for part in weights(found) for name, shape in part.items()]
        wanted = {name: tuple(size(dim, found) for dim in shape) for name, shape in parts if "pooler" not in name}
        # a masked LM has no pooler: the encoder alone's, below, is checked as a base
        assert {own_name(name, prefix): tuple(value.shape) for name, value in model.state_dict().items()} == wanted
    modernbert = tmp_path / "modernbert"
    models["modernbert"].save_pretrained(modernbert)
    AutoTokenizer.from_pretrained(roberta_base).save_pretrained(modernbert)
    encoder = shutil.copytree(base, tmp_path / "encoder")
    BertModel.from_pretrained(base).save_pretrained(encoder)
    legacy = shutil.copytree(base, tmp_path / "legacy")
    weights = load_file(legacy / "model.safetensors")
    renamed = {name.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): value
               for name, value in weights.items()}  # fmt: skip
    save_file(renamed, legacy / "model.safetensors", metadata={"format": "pt"})
    for folder in (roberta_base, modernbert, encoder, legacy):
        assert config_problems(continued_config(str(folder))) == [], folder


def test_the_pretraining_job_refuses_a_missing_encoder_weight_or_a_shape_and_names_unreadable_weights(base, tmp_path):
    """What a Hub base brings to the job: only the masked LM head may start fresh; a size mismatch is named, where
    transformers' own report (silenced) was all there was; a damaged file is a DataError naming it."""
    config = BertConfig.from_pretrained(base)
    short = edited(base, tmp_path / "short", num_hidden_layers=2)
    fresh = r"have no bert.encoder.layer.1.\S+ and 15 more, which its config.json asks for: they would start random"
    with pytest.raises(DataError, match=r"its weights \(\S+/short/model.safetensors\) " + fresh):
        masked_positions_model(BertConfig.from_pretrained(short), short)
    wide = edited(base, tmp_path / "wide", intermediate_size=128)
    with pytest.raises(DataError, match=r"in its weights \(\S+/wide/model.safetensors\), bert.encoder.layer.0.\S+ is "
                                        r"\[64.*\], but its config.json makes it \[128"):  # fmt: skip
        masked_positions_model(BertConfig.from_pretrained(wide), wide)
    damaged = shutil.copytree(base, tmp_path / "damaged")
    whole = (damaged / "model.safetensors").read_bytes()
    (damaged / "model.safetensors").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataError, match=r"its weights \(\S+/damaged/model.safetensors\) cannot be loaded "
                                        r"\(SafetensorError: "):  # fmt: skip
        masked_positions_model(config, str(damaged))


def test_a_compared_folder_is_checked_whole(base, tmp_path):
    """As a base is: its config's values, its weights against it and its tokenizer's vocabulary (a compared model
    of a few tokens was fine-tuned and reported without a word)."""
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    for task in config["finetune"]["tasks"]:
        task["recipe"]["max_length"] = 32  # the tiny base's positions
    typed = edited(base, tmp_path / "typed", num_attention_heads="2")
    vocabless = shutil.copytree(base, tmp_path / "vocabless", ignore=NO_VOCABULARY)
    layered = edited(base, tmp_path / "layered", num_hidden_layers=3)
    config["finetune"]["compare"] = [{"name": f"m{index}", "model": str(folder)}
                                     for index, folder in enumerate((typed, vocabless, layered, base))]  # fmt: skip
    validate_config(config)
    problems = config_problems(config)
    assert len(problems) == 3
    starts = [f"{typed!r}: in its {typed}/config.json, num_attention_heads is \"2\", not a whole number",
              f"{str(vocabless)!r}: its tokenizer files hold no vocabulary (",
              f"{layered!r}: its {layered}/config.json says num_hidden_layers 3, but its weights"]  # fmt: skip
    for index, (problem, start) in enumerate(zip(problems, starts, strict=True)):
        assert problem.startswith(f"config finetune.compare[{index}].model {start}"), problem


def test_a_job_names_a_symlink_loop_it_is_given(tmp_path):
    """A RuntimeError from resolving the loop was all the job said (the parse now refuses it first)."""
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    with pytest.raises(DataError, match=r"model.init_from '\S+/loop' could not be loaded: tried a folder \S+/loop "):
        job_model(continued_config(str(tmp_path / "loop"))["model"])


def test_the_tokenizer_job_refuses_a_hub_tokenizer_asking_for_remote_code(base, tmp_path, monkeypatch):
    """A Hub base's tokenizer_config.json, unseen by the parse: save_pretrained would copy its auto_map into
    results/tokenizer and the published model."""
    from snakebert.data import base_tokenizer

    folder = shutil.copytree(base, tmp_path / "remote")
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(
        json.dumps({**settings, "auto_map": {"AutoTokenizer": ["t.T", None]}})
    )
    monkeypatch.setattr(base_tokenizer, "tokenizer_problem", lambda name, what: None)  # its files unread, as a Hub id's
    with pytest.raises(DataError, match=r"its tokenizer_config.json asks for remote code \(auto_map\)"):
        base_tokenizer.keep_tokenizer(str(folder), str(tmp_path / "tokenizer"))
    assert not (tmp_path / "tokenizer").exists()
