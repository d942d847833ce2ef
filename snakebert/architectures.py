"""The architectures a run pretrains or continues, one table without torch (the workflow's parse reads it): each
one's name as `model.architecture` and a config's `model_type` give it, its name in prose, the names its config gives
the `model` section's dropout keys, and whether optimum-habana has a validated Gaudi path for it. The classes that
build and train each one are training/model.py's ARCHITECTURES, keyed alike (tests/unit/test_tables.py holds the keys,
and the schema's enum, equal)."""

from dataclasses import dataclass

SAME_DROPOUTS = {key: key for key in ("hidden_dropout_prob", "attention_probs_dropout_prob")}


@dataclass(frozen=True)
class ArchitectureFacts:
    title: str  # its name in prose (the model card's)
    dropouts: dict[str, str]  # the model section's dropout keys, as its config names them
    on_hpu: bool  # optimum-habana 1.18 has a validated path for it (the Gaudi 1 stack)


ARCHITECTURE_FACTS = {
    "bert": ArchitectureFacts("BERT", SAME_DROPOUTS, on_hpu=True),
    "modernbert": ArchitectureFacts(
        "ModernBERT", {"hidden_dropout_prob": "mlp_dropout", "attention_probs_dropout_prob": "attention_dropout"}, False
    ),
    "roberta": ArchitectureFacts("RoBERTa", SAME_DROPOUTS, on_hpu=True),
    "xlm-roberta": ArchitectureFacts("XLM-RoBERTa", SAME_DROPOUTS, on_hpu=True),
}
HPU_ARCHITECTURES = tuple(name for name, facts in ARCHITECTURE_FACTS.items() if facts.on_hpu)
