"""The weights a base's config.json asks for, by architecture (training/model.py's ARCHITECTURES): each weight's name
as the encoder alone names it and its shape in the config's numbers, so that a checkpoint's weight headers
(files/weight_shapes.py) are set against its config before any job runs. The encoder's weights are all needed (one
missing would start random); the masked LM head's and a pooler's, where the checkpoint holds them, must have their
shapes too (a head missing whole starts fresh). Reads JSON numbers only: no torch."""

import re
from collections.abc import Callable

Dims = tuple[str, ...]  # each a config key, or "3*hidden_size"
SHAPED = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
SHAPED += ("max_position_embeddings",)  # the keys a supported config must hold (its shapes follow from them)
H, FFN, V = "hidden_size", "intermediate_size", "vocab_size"
LEGACY_NAMES = {".gamma": ".weight", ".beta": ".bias"}  # a LayerNorm's, in old BERT checkpoints (transformers renames)


def _linear(name: str, rows: str, columns: str, bias: bool = True) -> dict[str, Dims]:
    return {f"{name}.weight": (rows, columns), **({f"{name}.bias": (rows,)} if bias else {})}


def _norm(name: str, bias: bool = True) -> dict[str, Dims]:
    return {f"{name}.weight": (H,), **({f"{name}.bias": (H,)} if bias else {})}


def _bert_like(found: dict, head: str) -> tuple[dict[str, Dims], dict[str, Dims]]:
    """BERT's encoder (RoBERTa's and XLM-R's too), and its masked LM head and pooler (`head`: the head's name)."""
    encoder = {"embeddings.word_embeddings.weight": (V, H), "embeddings.position_embeddings.weight":
               ("max_position_embeddings", H), "embeddings.token_type_embeddings.weight": ("type_vocab_size", H),
               **_norm("embeddings.LayerNorm")}  # fmt: skip
    for layer in range(found["num_hidden_layers"]):
        at = f"encoder.layer.{layer}."
        for part in ("query", "key", "value"):
            encoder |= _linear(f"{at}attention.self.{part}", H, H)
        encoder |= _linear(f"{at}attention.output.dense", H, H) | _norm(f"{at}attention.output.LayerNorm")
        encoder |= _linear(f"{at}intermediate.dense", FFN, H) | _linear(f"{at}output.dense", H, FFN)
        encoder |= _norm(f"{at}output.LayerNorm")
    if head == "cls":
        others = _linear("cls.predictions.transform.dense", H, H) | _norm("cls.predictions.transform.LayerNorm")
        others |= {"cls.predictions.bias": (V,)} | _linear("cls.predictions.decoder", V, H)
    else:
        others = _linear("lm_head.dense", H, H) | _norm("lm_head.layer_norm") | {"lm_head.bias": (V,)}
        others |= _linear("lm_head.decoder", V, H)
    return encoder, others | _linear("pooler.dense", H, H)


def _modernbert(found: dict) -> tuple[dict[str, Dims], dict[str, Dims]]:
    """ModernBERT's encoder (its first layer has no attention norm), head and decoder, biases as its config asks."""
    norm_bias, attention_bias, mlp_bias = (found.get(key, False) for key in ("norm_bias", "attention_bias", "mlp_bias"))
    encoder = {"embeddings.tok_embeddings.weight": (V, H)} | _norm("embeddings.norm", norm_bias)
    for layer in range(found["num_hidden_layers"]):
        at = f"layers.{layer}."
        encoder |= _norm(f"{at}attn_norm", norm_bias) if layer else {}
        encoder |= _linear(f"{at}attn.Wqkv", f"3*{H}", H, attention_bias)
        encoder |= _linear(f"{at}attn.Wo", H, H, attention_bias) | _norm(f"{at}mlp_norm", norm_bias)
        encoder |= _linear(f"{at}mlp.Wi", f"2*{FFN}", H, mlp_bias) | _linear(f"{at}mlp.Wo", H, FFN, mlp_bias)
    encoder |= _norm("final_norm", norm_bias)
    head = _linear("head.dense", H, H, found.get("classifier_bias", False)) | _norm("head.norm", norm_bias)
    return encoder, head | _linear("decoder", V, H, found.get("decoder_bias", True))


# architecture -> (the prefix a masked LM puts before its encoder's names, the encoder's and the other weights)
ENCODERS: dict[str, tuple[str, Callable[[dict], tuple[dict[str, Dims], dict[str, Dims]]]]] = {
    "bert": ("bert.", lambda found: _bert_like(found, "cls")),
    "modernbert": ("model.", _modernbert),
    "roberta": ("roberta.", lambda found: _bert_like(found, "lm_head")),
    "xlm-roberta": ("roberta.", lambda found: _bert_like(found, "lm_head")),
}
DEFAULTS = {"type_vocab_size": 2}  # what transformers' configs take for a key config.json lacks


def size(dim: str, found: dict) -> int:
    factor, _, key = dim.rpartition("*")
    return int(factor or 1) * {**DEFAULTS, **found}[key]


def layers_held(names) -> list[int]:
    """The layer numbers the weight `names` (as the encoder names them) hold."""
    pattern = re.compile(r"(?:encoder\.layer|layers)\.(\d+)\.")
    return sorted({int(match.group(1)) for name in names if (match := pattern.match(name))})


def counted(layers: list[int]) -> str:
    """The layers weights hold, as a message says it: `1 layer`, `3 layers`, or their numbers when some are skipped."""
    if layers != list(range(len(layers))):
        return f"layers {', '.join(map(str, layers))}"
    return f"{len(layers)} layer{'s' * (len(layers) != 1)}"


def own_name(name: str, prefix: str) -> str:
    """A checkpoint's weight name as the encoder alone names it (a masked LM's prefix off, old LayerNorm names new)."""
    name = name.removeprefix(prefix)
    for old, new in LEGACY_NAMES.items():
        if name.endswith(old) and "LayerNorm" in name:
            name = name.removesuffix(old) + new
    return name


def shape_problem(architecture: str, found: dict, shapes: dict[str, tuple[int, ...]], weights: str, config: str):
    """Why the checkpoint's weight `shapes` (from the file `weights`) are not those its config `found` (the file
    `config`) asks for; None when they are."""
    prefix, expected_weights = ENCODERS[architecture]
    held = {own_name(name, prefix): name for name in shapes}
    layers, wanted = layers_held(held), found["num_hidden_layers"]
    if len(layers) != wanted or layers != list(range(wanted)):  # the count first: a config may claim 10**9 layers
        return (
            f"its {config} says num_hidden_layers {wanted}, but its weights ({weights}) hold {counted(layers)}: a "
            "layer without weights would start random; set num_hidden_layers to the layers the weights hold, or use "
            "the checkpoint's whole weights"
        )
    encoder, others = expected_weights(found)
    missing = [name for name in encoder if name not in held]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        return (
            f"its weights ({weights}) have no {prefix}{missing[0]}{more}, which its {config} asks for: it would start "
            "random; use the checkpoint's whole weights, or the config.json saved with them"
        )
    for name, dims in (encoder | others).items():
        wanted_shape = tuple(size(dim, found) for dim in dims)
        if name in held and shapes[held[name]] != wanted_shape:
            keys = dict.fromkeys(dim.rpartition("*")[2] for dim in dims)
            numbers = ", ".join(f"{key} {size(key, found)}" for key in keys)
            return (
                f"in its weights ({weights}), {held[name]} is {list(shapes[held[name]])}, but its {config} ({numbers}) "
                f"makes it {list(wanted_shape)}; use the config.json saved with the weights"
            )
    return None
