"""Continued pretraining's base (`model.init_from`): the config against the base (null keys take its values, other
values refused naming both, remote code and other architectures refused), its tokenizer kept as it is, its weights the
start (an encoder alone gets a fresh head tied to its embeddings), and bad bases named before anything is written."""

import copy
import json
import re
import shutil

import pytest
import torch
from continued_configs import continued_config
from log_records import logged
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer
from transformers import AutoTokenizer, BertForSequenceClassification, BertModel, RobertaModel

from snakebert.config_checks import config_problems, finetune_problems
from snakebert.config_defaults import schema_defaults
from snakebert.data.base_tokenizer import keep_tokenizer
from snakebert.errors import DataError
from snakebert.training.base_model import base_digest, job_model, resolved
from snakebert.training.job import TrainingJob
from snakebert.training.model import load_masked_lm, masked_positions_model, model_config
from snakebert.training.preflight import check_positions
from snakebert.training.pretrain import pretrain

TEXT = "The Senate and HOUSE of representatives, in 1853: an unheard-of wordpiece, naïve café."


def test_null_keys_take_the_bases_values_and_the_shipped_continue_config_passes(base):
    config = continued_config(base)
    assert config_problems(config) == []
    model = resolved(config["model"])
    assert {key: model[key] for key in ("architecture", "hidden_size", "num_hidden_layers", "max_position_embeddings",
                                        "hidden_dropout_prob")} == {  # fmt: skip
        "architecture": "bert", "hidden_size": 32, "num_hidden_layers": 1, "max_position_embeddings": 32,
        "hidden_dropout_prob": 0.1}  # fmt: skip


def test_keys_that_disagree_with_the_base_and_tokenizer_training_keys_are_refused(base):
    config = continued_config(base, hidden_size=64, architecture="bert")
    assert config_problems(config) == [
        "config model.hidden_size is 64, but the model.init_from base has 32 (leave it null to take the base's)"
    ]
    config = continued_config(base)
    config["tokenizer"]["vocab_size"] = 8000
    assert config_problems(config) == [
        "config tokenizer.vocab_size is 8000, but model.init_from keeps the base's tokenizer, which trains nothing: "
        "leave it at its default (32000; config/continue.yaml does)"
    ]
    config = continued_config(base)
    config["data"]["block_size"] = 64
    assert "config data.block_size (64) is larger than model.max_position_embeddings (32)" in config_problems(config)


def test_null_keys_without_a_base_are_refused(base):
    config = continued_config(base, init_from=None)
    assert config_problems(config)[0] == (
        "config model.architecture is null, which takes the value of a model.init_from base, and model.init_from "
        "is not set"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"auto_map": {"AutoModel": "modeling.Custom"}},
            "its config.json asks for remote code \\(auto_map\\), which is never run",
        ),
        ({"model_type": "gpt2"}, "architecture 'gpt2' is not supported; supported: bert, modernbert"),
    ],
)
def test_a_base_asking_for_remote_code_or_of_another_architecture_is_refused(base, tmp_path, change, message):
    """Refused from its config alone, when the workflow is read and again by the job: the code a remote-code base
    plants (here, a module that writes a file when imported) never runs."""
    folder = shutil.copytree(base, tmp_path / "base")
    found = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**found, **change}))
    ran = tmp_path / "remote-code-ran"
    (folder / "modeling.py").write_text(f"open({str(ran)!r}, 'w').close()\n")
    (problem,) = config_problems(continued_config(str(folder)))
    assert problem.startswith(f"config model.init_from {str(folder)!r}: ")
    with pytest.raises(DataError, match=message):
        job_model(continued_config(str(folder))["model"])
    assert not ran.exists()


def test_a_hub_base_that_cannot_be_read_is_named_with_what_was_tried(base, monkeypatch):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # no retries: the name, at once
    config = continued_config("someone/missing-bert")
    assert config_problems(config) == []  # a Hub id is read by the job, not when the workflow is parsed
    with pytest.raises(DataError, match="model.init_from 'someone/missing-bert' could not be loaded: tried a folder"):
        job_model(config["model"])


def test_a_compare_model_named_base_is_refused(base):
    finetune = copy.deepcopy(continued_config(base)["finetune"])
    finetune["compare"] = [{"name": "base", "model": "x"}]
    assert finetune_problems(finetune, 32) == [
        "config finetune.compare[0]: name 'base' is reserved for the results' own rows"
    ]


def test_the_kept_tokenizer_gives_the_bases_ids(base, tmp_path):
    kept = keep_tokenizer(base, str(tmp_path / "tokenizer"))
    theirs, ours = AutoTokenizer.from_pretrained(base), AutoTokenizer.from_pretrained(tmp_path / "tokenizer")
    assert ours(TEXT)["input_ids"] == theirs(TEXT)["input_ids"] and len(ours) == len(theirs) == kept["tokens"]
    assert kept["mask_token"] == "[MASK]" and ours.get_vocab() == theirs.get_vocab()


def test_a_base_folder_without_a_tokenizer_or_a_mask_token_is_refused_and_nothing_is_written(base, tmp_path):
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(f"{base}/{name}", bare / name)
    with pytest.raises(DataError, match="the folder holds no tokenizer"):
        keep_tokenizer(str(bare), str(tmp_path / "out"))
    no_mask = shutil.copytree(base, tmp_path / "no-mask")
    settings = json.loads((no_mask / "tokenizer_config.json").read_text())
    (no_mask / "tokenizer_config.json").write_text(json.dumps({**settings, "mask_token": None}))
    with pytest.raises(DataError, match="its tokenizer has no mask_token"):
        keep_tokenizer(str(no_mask), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_the_start_is_the_bases_weights_and_an_encoder_alone_gets_a_fresh_tied_head(base, tmp_path, capsys):
    model = job_model({**schema_defaults("model"), **continued_config(base)["model"]})
    tokenizer = AutoTokenizer.from_pretrained(base)
    config = model_config(model, tokenizer)
    whole = masked_positions_model(config, base)
    saved = type(whole).from_pretrained(base).state_dict()
    assert all(torch.equal(value, saved[name]) for name, value in whole.state_dict().items())
    assert capsys.readouterr().out == ""  # nothing started fresh
    encoder = tmp_path / "encoder"
    BertModel.from_pretrained(base).save_pretrained(encoder)
    torch.manual_seed(3)
    with logged("transformers") as transformers_said:
        first = masked_positions_model(config, str(encoder))
    said = capsys.readouterr().out
    assert "start fresh (a base without its masked LM head)" in said
    assert "its pooler is kept as it is, frozen, for the classifiers fine-tuned from the model" in said
    assert "not used" not in said and "pooler" not in said.split("no weights for")[1]
    assert transformers_said == []  # not its own report, which calls such a base corrupted
    assert torch.equal(first.bert.pooler.dense.weight, BertModel.from_pretrained(encoder).pooler.dense.weight)
    assert not any(weight.requires_grad for weight in first.bert.pooler.parameters())
    assert whole.bert.pooler is None  # a masked LM base has none to keep
    torch.manual_seed(3)
    again = masked_positions_model(config, str(encoder), resuming=True)
    assert capsys.readouterr().out == ""  # a resumed checkpoint replaces the fresh head: nothing to say of it
    assert torch.equal(first.bert.encoder.layer[0].output.dense.weight, whole.bert.encoder.layer[0].output.dense.weight)
    decoder = first.cls.predictions.decoder.weight
    assert decoder.data_ptr() == first.bert.embeddings.word_embeddings.weight.data_ptr()  # tied
    head = first.cls.predictions.transform.dense.weight
    assert not torch.equal(head, whole.cls.predictions.transform.dense.weight)  # fresh, not the base's
    assert torch.equal(head, again.cls.predictions.transform.dense.weight)  # and drawn from the seed


def test_the_fingerprint_follows_every_file_of_a_base_folder(base, tmp_path):
    folder = shutil.copytree(base, tmp_path / "base")
    before = base_digest(str(folder))
    assert base_digest(str(folder)) == before and base_digest("someone/bert") == "someone/bert"
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**settings, "model_max_length": 16}))
    assert base_digest(str(folder)) != before


def test_blocks_beyond_a_hub_bases_positions_are_refused_by_the_job_before_its_first_step():
    """What the parse cannot read for a Hub base: its positions, checked once the job has its config."""
    check_positions([16, 32], 32, "model.init_from 'someone/bert'")
    with pytest.raises(
        DataError, match="model.init_from 'someone/bert': blocks of 64 tokens do not fit its 32 positions"
    ):
        check_positions([16, 64], 32, "model.init_from 'someone/bert'")


def test_a_roberta_base_counts_its_usable_positions_and_keeps_its_tokenizer(roberta_base, tmp_path):
    """RoBERTa numbers positions after its padding id: 34 position rows hold 32 usable positions."""
    config = continued_config(roberta_base)
    model = resolved(config["model"])
    assert model["architecture"] == "roberta" and model["max_position_embeddings"] == 32
    assert config_problems(config) == []
    config["data"]["block_size"] = 33
    assert "config data.block_size (33) is larger than model.max_position_embeddings (32)" in config_problems(config)
    kept = keep_tokenizer(roberta_base, str(tmp_path / "tokenizer"))
    theirs, ours = AutoTokenizer.from_pretrained(roberta_base), AutoTokenizer.from_pretrained(tmp_path / "tokenizer")
    assert ours(TEXT)["input_ids"] == theirs(TEXT)["input_ids"] and kept["mask_token"] == "<mask>"


def test_a_roberta_start_is_its_weights_and_an_encoder_alone_gets_a_fresh_tied_head(roberta_base, tmp_path, capsys):
    model = job_model({**schema_defaults("model"), **continued_config(roberta_base)["model"]})
    config = model_config(model, AutoTokenizer.from_pretrained(roberta_base))
    assert type(config).__name__ == "RobertaConfig" and config.max_position_embeddings == 34
    whole = masked_positions_model(config, roberta_base)
    saved = type(whole).from_pretrained(roberta_base).state_dict()
    assert all(torch.equal(value, saved[name]) for name, value in whole.state_dict().items())
    RobertaModel.from_pretrained(roberta_base).save_pretrained(tmp_path / "encoder")
    capsys.readouterr()
    encoder = masked_positions_model(config, str(tmp_path / "encoder"))
    assert "start fresh (a base without its masked LM head)" in capsys.readouterr().out
    assert encoder.lm_head.decoder.weight.data_ptr() == encoder.roberta.embeddings.word_embeddings.weight.data_ptr()
    assert torch.equal(
        encoder.roberta.embeddings.position_embeddings.weight, whole.roberta.embeddings.position_embeddings.weight
    )


def killed_and_resumed(data, encoder, tmp_path, monkeypatch, capsys) -> tuple[str, str]:
    """Four steps from the weights of `encoder`, checkpointed at each (tmp_path/model); with the last checkpoint gone
    (a run killed after step 3), the rerun (tmp_path/resumed) resumes from step 3 and saves the same bytes. What each
    run printed."""
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.chdir(tmp_path)
    settings = {**schema_defaults("pretrain"), "max_steps": 4, "save_steps": 1, "logging_steps": 1, "eval_steps": 4,
                "per_device_train_batch_size": 4, "eval_blocks": 4, "per_device_eval_batch_size": 4,
                "warmup_steps": 1, "learning_rate": 1e-3}  # fmt: skip
    model = {**dict.fromkeys(schema_defaults("model")), "init_from": str(encoder)}
    job = TrainingJob(str(data.manifest), str(data.tokenizer), model, settings, backend="cpu",
                      checkpoints=str(tmp_path / "checkpoints"), threads=1)  # fmt: skip
    metrics = pretrain(job, str(tmp_path / "model"))
    said = capsys.readouterr().out
    [run] = [path for path in (tmp_path / "checkpoints").iterdir() if path.is_dir()]
    shutil.rmtree(run / "checkpoint-4")
    resumed = pretrain(job, str(tmp_path / "resumed"))
    assert metrics.steps == 4 and metrics.init_from == str(encoder)
    assert resumed.resumed_from == str(run / "checkpoint-3")
    weights = [(tmp_path / name / "model.safetensors").read_bytes() for name in ("model", "resumed")]
    assert weights[0] == weights[1]
    return said, capsys.readouterr().out


def test_a_continued_roberta_run_resumed_from_a_checkpoint_ends_bit_identical(roberta_data, roberta_base, tmp_path,
                                                                               monkeypatch, capsys):  # fmt: skip
    """From the weights of the base's encoder (its head fresh, from the seed): the resumed run saves the same bytes."""
    encoder = shutil.copytree(roberta_base, tmp_path / "encoder")  # the base's tokenizer, then its encoder alone
    RobertaModel.from_pretrained(roberta_base).save_pretrained(encoder)
    said, resumed_said = killed_and_resumed(roberta_data, encoder, tmp_path, monkeypatch, capsys)
    assert "they start fresh (a base without its masked LM head)" in said
    assert "start fresh" not in resumed_said  # the checkpoint's head, not a fresh one
    assert json.loads((tmp_path / "model/config.json").read_text())["architectures"] == ["RobertaForMaskedLM"]


def test_a_continued_bert_run_keeps_its_bases_pooler_through_a_resume_for_fine_tuning(base, tiny_data, tmp_path,
                                                                                      monkeypatch, capsys):  # fmt: skip
    """An encoder base with a pooler (BertModel): the pooler rides along frozen through training and a resume, the
    saved masked LM holds it as it was, a sequence classifier built from that model starts from the base's pooler, as
    one built from the base does, and our loader of the saved model says nothing of it."""
    encoder = shutil.copytree(base, tmp_path / "encoder")
    torch.manual_seed(5)
    start = BertModel.from_pretrained(base)  # its pooler drawn from the seed: the masked LM base has none
    start.save_pretrained(encoder)
    said, resumed_said = killed_and_resumed(tiny_data, encoder, tmp_path, monkeypatch, capsys)
    assert "its pooler is kept as it is, frozen" in said and "pooler" not in resumed_said
    saved = load_file(tmp_path / "model/model.safetensors")
    assert torch.equal(saved["bert.pooler.dense.weight"], start.pooler.dense.weight)
    trained = saved["bert.encoder.layer.0.output.dense.weight"]
    assert not torch.equal(trained, start.encoder.layer[0].output.dense.weight)
    classifier = BertForSequenceClassification.from_pretrained(tmp_path / "model", num_labels=2)
    assert torch.equal(classifier.bert.pooler.dense.bias, start.pooler.dense.bias)
    with logged("transformers") as transformers_said:
        masked_lm = load_masked_lm(str(tmp_path / "model"))
    assert transformers_said == [] and masked_lm.bert.pooler is None


def test_a_saved_model_missing_weights_or_holding_others_is_refused_naming_them(base, tmp_path):
    BertModel.from_pretrained(base).save_pretrained(tmp_path / "encoder")  # no masked LM head
    with pytest.raises(DataError, match=r"encoder: not a whole saved masked LM \(weights missing: .*cls\.predictions"):
        load_masked_lm(str(tmp_path / "encoder"))
    extra = shutil.copytree(base, tmp_path / "extra")
    weights = load_file(extra / "model.safetensors")
    save_file({**weights, "cls.seq_relationship.weight": torch.zeros(2, 32)}, extra / "model.safetensors",
              metadata={"format": "pt"})  # fmt: skip
    with pytest.raises(DataError, match=r"extra: .*weights missing: none; weights it does not use: cls\.seq_relation"):
        load_masked_lm(str(extra))
    assert load_masked_lm(base).bert.pooler is None  # a whole one loads


def added_tokenizer(base: str, data, folder, wanted: int) -> dict:
    raw = [str(path) for path in sorted((data.root / "results/raw").glob("*/*.arrow"))]
    return keep_tokenizer(base, str(folder), wanted, raw, str(data.root / "results/dedup/duplicates.arrow"))


def test_added_words_go_after_the_bases_ids_most_saving_first(base, tiny_data, tmp_path):
    kept = added_tokenizer(base, tiny_data, tmp_path / "tokenizer", 12)
    theirs, ours = AutoTokenizer.from_pretrained(base), AutoTokenizer.from_pretrained(tmp_path / "tokenizer")
    words = kept["added_words"]
    assert len(words) == 12 and len(ours) == len(theirs) + 12 == kept["tokens"]
    assert ours.get_vocab() == {**theirs.get_vocab(), **{word: len(theirs) + index for index, word in enumerate(words)}}
    pieces = [len(theirs(word, add_special_tokens=False)["input_ids"]) for word in words]
    assert all(count >= 2 for count in pieces)
    assert all(
        ours(word, add_special_tokens=False)["input_ids"] == [ours.convert_tokens_to_ids(word)] for word in words
    )
    corpus = " ".join(tiny_data.root.joinpath("corpus", name).read_text() for name in sorted(
        path.name for path in (tiny_data.root / "corpus").iterdir())).lower()  # fmt: skip
    found = re.findall(r"\w+|[^\w\s]", corpus)  # words as BERT's pre-tokenizer cuts them
    saved = [found.count(word) * (count - 1) for word, count in zip(words, pieces, strict=True)]
    assert saved == sorted(saved, reverse=True) and saved[-1] > 0
    assert len(ours(corpus)["input_ids"]) < len(theirs(corpus)["input_ids"])


def test_more_added_words_than_the_corpus_holds_or_a_vocabulary_that_is_not_wordpiece_is_refused(
    base, tiny_data, roberta_base, tmp_path
):
    with pytest.raises(DataError, match=r"tokenizer.add_tokens is 100000, but the corpus has only \d+ distinct words"):
        added_tokenizer(base, tiny_data, tmp_path / "many", 100_000)
    with pytest.raises(
        DataError, match="appends words to a WordPiece vocabulary \\(BERT's\\); the base's tokenizer is BPE"
    ):
        added_tokenizer(roberta_base, tiny_data, tmp_path / "bpe", 4)
    assert not (tmp_path / "many").exists() and not (tmp_path / "bpe").exists()
    config = continued_config(base, init_from=None)
    config["tokenizer"]["add_tokens"] = 4
    assert "config tokenizer.add_tokens is 4, but it adds words to a model.init_from base's tokenizer" in (
        " ".join(config_problems({**config, "model": schema_defaults("model")})))  # fmt: skip
    config = continued_config(base)
    config["tokenizer"]["add_tokens"] = 4
    assert config_problems(config) == []


def test_an_added_words_embedding_starts_as_the_mean_of_its_pieces(base, tiny_data, tmp_path, capsys):
    words = added_tokenizer(base, tiny_data, tmp_path / "tokenizer", 5)["added_words"]
    theirs, ours = AutoTokenizer.from_pretrained(base), AutoTokenizer.from_pretrained(tmp_path / "tokenizer")
    model = job_model({**schema_defaults("model"), **continued_config(base)["model"]})
    config = model_config(model, ours)
    grown = masked_positions_model(config, base, ours)
    start = masked_positions_model(config, base)
    assert "5 added words, each embedding the mean of its pieces'" in capsys.readouterr().out
    embeddings, original = grown.bert.embeddings.word_embeddings.weight, start.bert.embeddings.word_embeddings.weight
    assert embeddings.shape[0] == len(ours) and torch.equal(embeddings[: len(theirs)], original)
    for word in words:
        row, pieces = ours.convert_tokens_to_ids(word), theirs(word, add_special_tokens=False)["input_ids"]
        assert torch.allclose(embeddings[row], original[pieces].mean(0))
        assert torch.allclose(grown.cls.predictions.bias[row], start.cls.predictions.bias[pieces].mean())
    assert grown.cls.predictions.decoder.weight.data_ptr() == embeddings.data_ptr()  # still tied


def test_a_truncation_or_padding_the_base_saved_is_dropped_so_documents_stay_whole(base, tmp_path):
    """A sentence-embedding checkpoint (all-MiniLM-L6-v2) saves tokenizer.json cutting and padding every text to 128
    tokens: the data jobs would cut every document and fill blocks with [PAD]."""
    padded = shutil.copytree(base, tmp_path / "padded")
    spec = json.loads((padded / "tokenizer.json").read_text())
    spec["truncation"] = {"max_length": 8, "strategy": "LongestFirst", "stride": 0, "direction": "Right"}
    spec["padding"] = {"strategy": {"Fixed": 16}, "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0,
                       "pad_type_id": 0, "pad_token": "[PAD]"}  # fmt: skip
    (padded / "tokenizer.json").write_text(json.dumps(spec))
    assert len(Tokenizer.from_file(str(padded / "tokenizer.json")).encode(TEXT).ids) == 16
    keep_tokenizer(str(padded), str(tmp_path / "tokenizer"))
    whole = Tokenizer.from_file(str(tmp_path / "tokenizer/tokenizer.json")).encode(TEXT).ids
    assert whole == AutoTokenizer.from_pretrained(base)(TEXT)["input_ids"] and len(whole) > 16
