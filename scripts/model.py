"""BERT for masked language modelling, computing vocabulary logits only where a prediction is asked."""

import json
from pathlib import Path

import torch.nn.functional as F
from transformers import BertConfig, BertForMaskedLM
from transformers.modeling_outputs import MaskedLMOutput


def bert_config(model: dict, tokenizer) -> BertConfig:
    """BERT dimensions from config; vocabulary and padding id from the trained tokenizer."""
    return BertConfig(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, type_vocab_size=2, **model)


class BertForMaskedPositions(BertForMaskedLM):
    """The same weights as BertForMaskedLM; with labels, the prediction head runs on the ~15% masked
    positions only (the vocabulary projection is most of a small model's work), and `logits` holds
    those positions' rows. Without labels it is BertForMaskedLM."""

    def forward(self, input_ids=None, labels=None, num_items_in_batch=None, **kwargs):
        if labels is None:
            return super().forward(input_ids=input_ids, **kwargs)
        hidden = self.bert(input_ids=input_ids, **kwargs).last_hidden_state
        asked = labels != -100
        logits = self.cls(hidden[asked])
        if num_items_in_batch is None:
            loss = F.cross_entropy(logits.float(), labels[asked])
        else:  # the trainer's count over all accumulated micro-batches: sum here, it averages
            loss = F.cross_entropy(logits.float(), labels[asked], reduction="sum") / num_items_in_batch
        return MaskedLMOutput(loss=loss, logits=logits)


def save_as_bert(trainer, folder: Path) -> None:
    """Save the trained weights as a plain BertForMaskedLM model directory."""
    trainer.save_model(str(folder))
    config_file = folder / "config.json"
    config = json.loads(config_file.read_text())
    config["architectures"] = [BertForMaskedLM.__name__]
    config_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
