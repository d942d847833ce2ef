"""A model's config.json, value by value: each key that transformers' BERT, ModernBERT, RoBERTa and XLM-R models read
(the same names mean the same in any other architecture) of its type and in its range, so that neither the
workflow's parse nor a job meets a string where a width belongs, a head count of 0 to divide by, or a null to add to.
A supported architecture's config must hold every key its weights' shapes follow from (encoder_weights.SHAPED). Reads
the JSON alone."""

import json
import math

from .encoder_weights import ENCODERS, SHAPED

COUNTS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
COUNTS += ("max_position_embeddings", "local_attention", "global_attn_every_n_layers")
TOKEN_IDS = ("pad_token_id", "bos_token_id", "cls_token_id", "sep_token_id")
PROBABILITIES = ("hidden_dropout_prob", "attention_probs_dropout_prob", "attention_dropout", "mlp_dropout")
PROBABILITIES += ("embedding_dropout", "classifier_dropout")
POSITIVE = ("initializer_range", "layer_norm_eps", "norm_eps", "initializer_cutoff_factor")
FLAGS = ("norm_bias", "attention_bias", "mlp_bias", "decoder_bias", "classifier_bias", "tie_word_embeddings")
NAMES = ("model_type", "hidden_act", "hidden_activation", "classifier_activation")
RESERVES_POSITIONS = ("roberta", "xlm-roberta")  # position rows numbered from the padding id's + 1


def whole(value) -> bool:
    return type(value) is int


def number(value) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


RULES = (  # (keys, whether a value is right, what it must be)
    (COUNTS, lambda value: whole(value) and value >= 1, "a whole number of at least 1"),
    (("type_vocab_size",), lambda value: whole(value) and value >= 0, "a whole number of at least 0"),
    (TOKEN_IDS, lambda value: value is None or whole(value) and value >= 0, "null or a token id"),
    (PROBABILITIES, lambda value: value is None or number(value) and 0 <= value <= 1, "null or a number from 0 to 1"),
    (POSITIVE, lambda value: number(value) and value > 0, "a number above 0"),
    (FLAGS, lambda value: type(value) is bool, "true or false"),
    (NAMES, lambda value: isinstance(value, str), "a name"),
)
CHECKS = {key: (right, wanted) for keys, right, wanted in RULES for key in keys}


def shown(value) -> str:
    """`value` as JSON writes it, as a message quotes it: at most 60 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else f"{text[:57]}..."


def config_value_problem(found: dict, file: str) -> str | None:
    """The first key of the config `found` (the file `file`) whose value the model cannot take; None if none."""
    for key, (right, wanted) in CHECKS.items():
        if key in found and not right(found[key]):
            return f"in its {file}, {key} is {shown(found[key])}, not {wanted}; fix the file, or use another model"
    architecture = found.get("model_type")
    missing = [key for key in SHAPED if key not in found] if architecture in ENCODERS else []
    if missing:
        return f"its {file} has no {', '.join(missing)}, which the {architecture} model's shapes follow from"
    return relation_problem(found, file)


def relation_problem(found: dict, file: str) -> str | None:
    """Values right on their own and wrong together: heads that do not divide the width; in a supported architecture,
    a special token id past the vocabulary, a null padding id where positions are numbered after it, or no position
    after it."""
    width, heads = found.get("hidden_size"), found.get("num_attention_heads")
    if width and heads and width % heads:
        return f"in its {file}, hidden_size {width} is not a multiple of num_attention_heads {heads}"
    if found.get("model_type") not in ENCODERS:
        return None
    for key in TOKEN_IDS:
        if found.get(key) is not None and "vocab_size" in found and found[key] >= found["vocab_size"]:
            return f"in its {file}, {key} {found[key]} is not below vocab_size {found['vocab_size']}"
    if found.get("model_type") in RESERVES_POSITIONS:
        pad = found.get("pad_token_id", 1)
        if pad is None:
            return f"in its {file}, pad_token_id is null, but a {found['model_type']} model numbers positions after it"
        if found.get("max_position_embeddings", pad + 2) <= pad + 1:
            return (f"in its {file}, max_position_embeddings {found['max_position_embeddings']} leaves no position "
                    f"after those up to pad_token_id {pad}, which a {found['model_type']} model reserves")  # fmt: skip
    return None
