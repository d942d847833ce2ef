"""The model section's constraints beyond the schema: what BertConfig accepts and BertModel refuses at its first
use, checked when the workflow is read (this module imports neither torch nor transformers)."""


def config_problems(model: dict) -> list[str]:
    """Each violated constraint of config `model`, stated with its keys."""
    width, heads = model["hidden_size"], model["num_attention_heads"]
    if width % heads:
        return [f"config model.hidden_size ({width}) is not a multiple of model.num_attention_heads ({heads})"]
    return []


def backend_problems(model: dict, backend: str) -> list[str]:
    """The architecture against the backend that would train it: ModernBERT has no validated Gaudi 1 path."""
    if backend == "hpu" and model.get("architecture", "bert") != "bert":
        return [
            f"config model.architecture {model['architecture']!r} is not supported on the hpu backend (the Gaudi 1 "
            "stack, optimum-habana 1.18, has no validated path for it): use architecture bert there"
        ]
    return []
