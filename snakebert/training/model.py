"""The encoder architectures, one table, for masked language modelling that computes vocabulary logits only at the
k masked positions of each block.

- `bert`: transformers' BERT (post-LN, learned absolute positions), as the original and the DL1 references train it.
- `modernbert`: transformers' ModernBERT (pre-LN, rotary positions, GeGLU, alternating global and local attention),
  which leaves the unigram stage far sooner on the small default model (bench/RESULTS.md). Not on the `hpu`
  backend: the Gaudi 1 stack (optimum-habana 1.18) has no validated ModernBERT path.
- `roberta` and `xlm-roberta`: transformers' RoBERTa and XLM-RoBERTa (BERT's encoder, one token type, positions
  numbered from the padding id + 1), the most common bases of continued pretraining. Their position embeddings hold
  the padding id + 1 more rows than the positions a block can use (514 for 512): `model.max_position_embeddings`
  counts the usable ones, for every architecture.

Adding an architecture is an entry in ARCHITECTURES, its facts in snakebert/architectures.py (the parse's table,
without torch), the schema's `model.architecture` enum and the tests (tests/unit/test_tables.py checks that the
enum and both tables' keys are equal)."""

import json
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from transformers import (
    AutoModelForMaskedLM,
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    ModernBertConfig,
    ModernBertForMaskedLM,
    PretrainedConfig,
    RobertaConfig,
    RobertaForMaskedLM,
    XLMRobertaConfig,
    XLMRobertaForMaskedLM,
)
from transformers.modeling_outputs import MaskedLMOutput
from transformers.models.bert.modeling_bert import BertPooler
from transformers.utils import logging as hf_logging

from ..config_defaults import schema_defaults
from ..errors import DataError, first_line
from ..files.weight_shapes import weights_file
from ..named_loading import load_named
from ..tokenizer_files import ids_problem
from .base_model import INIT_FROM
from .masking import IGNORED

SAVED_POOLER = "bert.pooler."  # a continued BERT model's pooler, kept from its base (BertKeepingPooler)
SHARED_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
SHARED_KEYS += ("max_position_embeddings", "initializer_range")
BERT_KEYS = (*SHARED_KEYS, "hidden_dropout_prob", "attention_probs_dropout_prob")  # BERT's and RoBERTa's configs


@dataclass(frozen=True)
class Architecture:
    config: Callable[[dict, object], PretrainedConfig]  # (the model config section, the tokenizer) -> its config
    trained: type  # the class it trains as: the masked LM computing logits at the masked positions only
    continued: type  # the class a run continued from a base trains as (`trained`, or one keeping more of the base)
    masked_lm: type  # the transformers class a saved model loads as (AutoModelForMaskedLM picks it)
    encode: Callable  # (model, input ids) -> the last hidden states
    predict: Callable  # (model, hidden states) -> vocabulary logits
    input_names: tuple[str, ...]  # what its tokenizer gives the model


def _bert_config(model: dict, tokenizer) -> BertConfig:
    settings = {key: model[key] for key in BERT_KEYS}
    return BertConfig(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, type_vocab_size=2, **settings)


def _modernbert_config(model: dict, tokenizer) -> ModernBertConfig:
    """ModernBERT with BERT's dropout settings: hidden dropout on the embeddings and the MLP, attention dropout."""
    special = {f"{role}_token_id": getattr(tokenizer, f"{role}_token_id") for role in ("pad", "cls", "sep")}
    return ModernBertConfig(
        vocab_size=len(tokenizer),
        **special,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
        **{key: model[key] for key in SHARED_KEYS},
        embedding_dropout=model["hidden_dropout_prob"],
        mlp_dropout=model["hidden_dropout_prob"],
        attention_dropout=model["attention_probs_dropout_prob"],
    )


def _roberta_config(config_class: type) -> Callable[[dict, object], PretrainedConfig]:
    """RoBERTa's (or XLM-R's) config: BERT's settings, one token type, and position rows for the usable positions
    after the padding id and those before it (model_folders.usable_positions)."""

    def config(model: dict, tokenizer) -> PretrainedConfig:
        settings = {key: model[key] for key in BERT_KEYS}
        settings["max_position_embeddings"] += tokenizer.pad_token_id + 1
        special = {"pad_token_id": tokenizer.pad_token_id, "bos_token_id": tokenizer.cls_token_id}
        return config_class(vocab_size=len(tokenizer), eos_token_id=tokenizer.sep_token_id, type_vocab_size=1,
                            **special, **settings)  # fmt: skip

    return config


class MaskedPositions:
    """Mixed into a masked LM class: the same weights; with labels, the prediction head runs on the k masked
    positions of each block only (the vocabulary projection is most of a small model's work), and `logits` holds
    those positions' rows. Without labels it is the masked LM class."""

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

    def keep_from_base(self, missing: set[str]) -> tuple[set[str], list[str]]:
        """After loading a base: of its `missing` keys, those that start fresh, and what to say of weights kept."""
        return missing, []


class BertForMaskedPositions(MaskedPositions, BertForMaskedLM):
    pass


class BertKeepingPooler(BertForMaskedPositions):
    """BERT continued from a base: the base's pooler (the layer over [CLS] that BERT's sequence classifiers read) is
    kept, frozen: the masked LM does not use it, the saved model holds it, and a classifier fine-tuned from that model
    starts from the same pooler as one fine-tuned from the base. A base without one (a masked LM) leaves none."""

    def __init__(self, config):
        super().__init__(config)
        self.bert.pooler = BertPooler(config)

    def keep_from_base(self, missing: set[str]) -> tuple[set[str], list[str]]:
        pooler = {key for key in missing if key.startswith(SAVED_POOLER)}
        if pooler:
            self.bert.pooler = None
            return missing - pooler, []
        self.bert.pooler.requires_grad_(False)  # after loading, which makes its parameters anew
        return missing, ["its pooler is kept as it is, frozen, for the classifiers fine-tuned from the model"]


class ModernBertForMaskedPositions(MaskedPositions, ModernBertForMaskedLM):
    pass


class RobertaForMaskedPositions(MaskedPositions, RobertaForMaskedLM):
    pass


class XLMRobertaForMaskedPositions(MaskedPositions, XLMRobertaForMaskedLM):
    pass


def _roberta(config_class: type, trained: type, masked_lm: type) -> Architecture:
    """RoBERTa's classifiers have a head of their own, no pooler: a continued run keeps no more of the base."""
    return Architecture(
        config=_roberta_config(config_class),
        trained=trained,
        continued=trained,
        masked_lm=masked_lm,
        encode=lambda model, input_ids: model.roberta(input_ids=input_ids).last_hidden_state,
        predict=lambda model, hidden: model.lm_head(hidden),
        input_names=("input_ids", "attention_mask"),
    )


ARCHITECTURES = {
    "bert": Architecture(
        config=_bert_config,
        trained=BertForMaskedPositions,
        continued=BertKeepingPooler,
        masked_lm=BertForMaskedLM,
        encode=lambda model, input_ids: model.bert(input_ids=input_ids).last_hidden_state,
        predict=lambda model, hidden: model.cls(hidden),
        input_names=("input_ids", "token_type_ids", "attention_mask"),
    ),
    "modernbert": Architecture(
        config=_modernbert_config,
        trained=ModernBertForMaskedPositions,
        continued=ModernBertForMaskedPositions,  # its classifiers read the masked LM's own head
        masked_lm=ModernBertForMaskedLM,
        encode=lambda model, input_ids: model.model(input_ids=input_ids).last_hidden_state,
        predict=lambda model, hidden: model.decoder(model.head(hidden)),
        input_names=("input_ids", "attention_mask"),
    ),
    "roberta": _roberta(RobertaConfig, RobertaForMaskedPositions, RobertaForMaskedLM),
    "xlm-roberta": _roberta(XLMRobertaConfig, XLMRobertaForMaskedPositions, XLMRobertaForMaskedLM),
}


def architecture_of(config: PretrainedConfig) -> Architecture:
    """The architecture of a model's config (its `model_type` is the architecture's name)."""
    return ARCHITECTURES[config.model_type]


def model_config(model: dict, tokenizer) -> PretrainedConfig:
    """The architecture's config: dimensions from the model section (the schema's defaults for keys it lacks);
    vocabulary and special ids from the tokenizer. A continued run's is its base's own (`model` resolved against it,
    base_model.job_model); its embeddings grow with the words the run's tokenizer adds (grow_embeddings)."""
    model = {**schema_defaults("model"), **model}
    architecture = ARCHITECTURES[model["architecture"]]
    if not model[INIT_FROM]:
        return architecture.config(model, tokenizer)
    return architecture.masked_lm.config_class.from_pretrained(model[INIT_FROM])


def masked_logits(model, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """(batch, k, vocabulary) logits at `positions` (batch, k): a gather with static shapes, no boolean mask."""
    architecture = architecture_of(model.config)
    hidden = architecture.encode(model, input_ids)
    index = positions.unsqueeze(-1).expand(-1, -1, hidden.size(-1))
    return architecture.predict(model, hidden.gather(1, index))


def masked_positions_model(config: PretrainedConfig, base: str | None = None, tokenizer=None, resuming: bool = False):
    """The model of `config` as it trains: initialised from the global seed, or a continued run's `base` weights
    (load_base). A base without a masked LM head (an encoder alone) gets a fresh head, drawn from the global seed, its
    decoder tied to the input embeddings; the log says so, and names any weights of the base the masked LM does not
    use, but those it keeps for fine-tuning (BertKeepingPooler). With the run's `tokenizer`, rows for the words it adds
    to the base's (grow_embeddings). When `resuming`, a checkpoint of the run replaces these weights, and the log says
    nothing of them."""
    architecture = architecture_of(config)
    if base is None:
        return architecture.trained(config)
    model, missing, kept, unused = load_base(architecture.continued, config, base)
    notes = [f"model.init_from {base!r}: {note}" for note in kept]
    if missing:
        notes.append(f"model.init_from {base!r}: no weights for {', '.join(sorted(missing))}; they "
                     "start fresh (a base without its masked LM head)")  # fmt: skip
    if unused:
        notes.append(f"model.init_from {base!r}: its {', '.join(unused)} are not used "
                     "(a masked LM has no place for them)")  # fmt: skip
    if tokenizer is not None:
        notes += grow_embeddings(model, tokenizer, base)
    if not resuming:
        for note in notes:
            print(note, flush=True)
    return model


def load_base(model_class: type, config: PretrainedConfig, base: str) -> tuple[object, set[str], list[str], list[str]]:
    """The `base` weights in a `model_class` of `config`, the weights that start fresh (the masked LM head's, if the
    base has none), what to say of those kept (keep_from_base) and the base's weights the model does not use. A
    DataError naming the base and its weights file when they cannot be read, hold another shape than the config asks
    for, or lack a weight of the encoder, which would start random."""
    where = f"model.init_from {base!r}"
    weights = weights_file(Path(base)) if Path(base).is_dir() else None
    named = f" ({weights})" if weights else ""
    with transformers_errors_only():  # its own report calls a base without a head corrupted: ours says what it is
        try:
            model, loading = model_class.from_pretrained(base, config=config, output_loading_info=True,
                                                         ignore_mismatched_sizes=True)  # fmt: skip
        except Exception as error:  # noqa: BLE001 - a damaged file, an unreadable format: the same report
            raise DataError(f"{where}: its weights{named} cannot be loaded ({type(error).__name__}: "
                            f"{first_line(error)}); download or save the model again") from None  # fmt: skip
    mismatched = sorted(loading["mismatched_keys"])
    if mismatched:
        name, theirs, ours = mismatched[0]
        raise DataError(f"{where}: in its weights{named}, {name} is {list(theirs)}, but its config.json makes it "
                        f"{list(ours)} ({len(mismatched)} weights differ); use the config.json saved with the "
                        "weights")  # fmt: skip
    missing, kept = model.keep_from_base(set(loading["missing_keys"]))
    encoder = sorted(key for key in missing if key.startswith(f"{model.base_model_prefix}."))
    if encoder:
        more = f" and {len(encoder) - 1} more" if len(encoder) > 1 else ""
        raise DataError(f"{where}: its weights{named} have no {encoder[0]}{more}, which its config.json asks for: "
                        "they would start random; use the checkpoint's whole weights, or the config.json saved with "
                        "them")  # fmt: skip
    return model, missing, kept, sorted(loading["unexpected_keys"])


@contextmanager
def transformers_errors_only():
    """transformers logs errors only, not warnings, inside the block (its verbosity is restored after it)."""
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)


def grow_embeddings(model, tokenizer, base: str) -> list[str]:
    """Rows for the words `tokenizer` holds beyond the base's own tokenizer (tokenizer.add_tokens, appended after its
    ids): each row of the input embeddings (tied to the decoder), and of the output bias, starts as the mean of the
    rows of the pieces the base's tokenizer splits the word into (exBERT, AVocaDo). A base whose own tokenizer does
    not fit its embeddings (tokenizer_files.ids_problem; a folder's is refused when the workflow is read, a Hub id's
    here) is refused. What the log says of it: one line, none without added words."""
    theirs = load_named(AutoTokenizer.from_pretrained, base, "model.init_from")
    rows = model.get_input_embeddings().weight.shape[0]
    problem = ids_problem(len(theirs), rows)
    if problem:
        raise DataError(f"model.init_from {base!r}: its tokenizer {problem}: it is not the model's own")
    added = sorted(set(tokenizer.get_vocab().values()) - set(theirs.get_vocab().values()))
    if not added:
        return []
    pieces = [theirs(word, add_special_tokens=False)["input_ids"] for word in tokenizer.convert_ids_to_tokens(added)]
    if added[-1] >= rows:
        model.resize_token_embeddings(added[-1] + 1, mean_resizing=False)
    weight, bias = model.get_input_embeddings().weight, getattr(model.get_output_embeddings(), "bias", None)
    with torch.no_grad():
        for row, ids in zip(added, pieces, strict=True):
            weight[row] = weight[ids].mean(0)
            if bias is not None:
                bias[row] = bias[ids].mean()
    return [f"model.init_from {base!r}: {len(added)} added words, each embedding the mean of its pieces'"]


def load_masked_lm(folder: str):
    """A saved model (save_masked_lm) as its masked LM class. A continued BERT model's pooler, which the masked LM
    does not use, loads silently; any other weight missing from the folder, or not used, is a DataError naming it."""
    with transformers_errors_only():
        model, loading = AutoModelForMaskedLM.from_pretrained(folder, output_loading_info=True)
    missing = sorted(loading["missing_keys"])
    unused = sorted(key for key in loading["unexpected_keys"] if not key.startswith(SAVED_POOLER))
    if missing or unused:
        raise DataError(f"{folder}: not a whole saved masked LM (weights missing: {', '.join(missing) or 'none'}; "
                        f"weights it does not use: {', '.join(unused) or 'none'})")  # fmt: skip
    return model


def save_masked_lm(trainer, tokenizer, folder: Path) -> None:
    """Save the trained weights as a plain masked LM model directory of their architecture, with the tokenizer set
    to give the model only the inputs it takes."""
    trainer.save_model(str(folder))
    config_file = folder / "config.json"
    config = json.loads(config_file.read_text())
    architecture = ARCHITECTURES[config["model_type"]]
    config["architectures"] = [architecture.masked_lm.__name__]
    config_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    tokenizer.model_input_names = list(architecture.input_names)
    tokenizer.save_pretrained(str(folder))
