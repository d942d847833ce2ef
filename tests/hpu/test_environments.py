"""The two environments of a DL1 run meet at two files: the tokenizer the data half writes (tokenizers 0.23, in
the pipeline's environment) is read by the DL1 job (tokenizers 0.21, transformers 4.51), and the model that job
saves is read back by evaluation and fine-tuning (transformers 5). Both crossings, both ways they are made."""

import importlib.metadata
import json

import torch
from conftest import in_pipeline_environment
from test_gaudi_contract import trained  # noqa: F401 (a fixture: one pretrain run on the HPU path)
from transformers import AutoModelForMaskedLM, AutoTokenizer

TEXTS = ["The library opens at nine.", "Winter storms closed the pass for weeks, and nobody crossed it."]
ENCODE = """
import json, sys
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained(sys.argv[1])
print(json.dumps([tokenizer(text)["input_ids"] for text in json.loads(sys.argv[2])]))
"""
LOGITS = """
import json, sys, torch, transformers
from transformers import AutoModelForMaskedLM
model = AutoModelForMaskedLM.from_pretrained(sys.argv[1]).eval()
with torch.no_grad():
    logits = model(input_ids=torch.tensor(json.loads(sys.argv[2]))).logits
print(json.dumps({"version": transformers.__version__, "class": type(model).__name__, "logits": logits.tolist()}))
"""


def test_the_stacks_differ_where_the_files_cross():
    names = "('tokenizers', 'transformers')"
    versions = json.loads(
        in_pipeline_environment(
            f"import json, importlib.metadata as m; print(json.dumps({{n: m.version(n) for n in {names}}}))"
        )
    )
    here = {name: importlib.metadata.version(name) for name in versions}
    assert all(versions[name].split(".")[0:2] != here[name].split(".")[0:2] for name in versions), (versions, here)


def test_the_dl1_stack_encodes_as_the_tokenizer_the_pipeline_wrote(tiny_data):
    pipeline = json.loads(in_pipeline_environment(ENCODE, str(tiny_data.tokenizer), json.dumps(TEXTS)))
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_data.tokenizer))
    assert [tokenizer(text)["input_ids"] for text in TEXTS] == pipeline
    assert len(tokenizer) == json.loads((tiny_data.root / "results/dataset/manifest.json").read_text())["vocab_size"]


def test_the_pipeline_reads_the_model_the_dl1_stack_saved_to_the_same_logits(trained):  # noqa: F811
    folder = trained.folder / "model"
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    ids = [tokenizer(TEXTS[0])["input_ids"]]
    model = AutoModelForMaskedLM.from_pretrained(str(folder)).eval()
    with torch.no_grad():
        here = model(input_ids=torch.tensor(ids)).logits
    pipeline = json.loads(in_pipeline_environment(LOGITS, str(folder), json.dumps(ids)))
    assert pipeline["version"].split(".")[0] == "5" and pipeline["class"] == type(model).__name__
    assert torch.allclose(torch.tensor(pipeline["logits"]), here, atol=1e-5)
