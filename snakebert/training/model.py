"""BERT for masked language modelling, computing vocabulary logits only at the k masked positions of each block."""

import json
from pathlib import Path

import torch
import torch.nn.functional as F
from transformers import BertConfig, BertForMaskedLM
from transformers.modeling_outputs import MaskedLMOutput

from .masking import IGNORED


def bert_config(model: dict, tokenizer) -> BertConfig:
    """BERT dimensions from config; vocabulary and padding id from the trained tokenizer."""
    return BertConfig(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, type_vocab_size=2, **model)


def masked_logits(model: BertForMaskedLM, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """(batch, k, vocabulary) logits at `positions` (batch, k): a gather with static shapes, no boolean mask."""
    hidden = model.bert(input_ids=input_ids).last_hidden_state
    index = positions.unsqueeze(-1).expand(-1, -1, hidden.size(-1))
    return model.cls(hidden.gather(1, index))


class BertForMaskedPositions(BertForMaskedLM):
    """The same weights as BertForMaskedLM; with labels, the prediction head runs on the k masked positions of
    each block only (the vocabulary projection is most of a small model's work), and `logits` holds those
    positions' rows. Without labels it is BertForMaskedLM."""

    def forward(self, input_ids=None, labels=None, masked_positions=None, num_items_in_batch=None, **kwargs):
        if labels is None:
            return super().forward(input_ids=input_ids, **kwargs)
        logits = masked_logits(self, input_ids, masked_positions)
        flat = logits.flatten(0, 1).float()
        if num_items_in_batch is None:
            loss = F.cross_entropy(flat, labels.flatten(), ignore_index=IGNORED)
        else:  # the trainer's count over all accumulated micro-batches: sum here, it averages
            loss = F.cross_entropy(flat, labels.flatten(), ignore_index=IGNORED, reduction="sum") / num_items_in_batch
        return MaskedLMOutput(loss=loss, logits=logits)


def save_as_bert(trainer, folder: Path) -> None:
    """Save the trained weights as a plain BertForMaskedLM model directory."""
    trainer.save_model(str(folder))
    config_file = folder / "config.json"
    config = json.loads(config_file.read_text())
    config["architectures"] = [BertForMaskedLM.__name__]
    config_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
