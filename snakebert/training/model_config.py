"""The model section's constraints beyond the schema: what BertConfig accepts and BertModel refuses at its first
use, checked when the workflow is read (this module imports neither torch nor transformers)."""


def config_problems(model: dict) -> list[str]:
    """Each violated constraint of config `model`, stated with its keys."""
    width, heads = model["hidden_size"], model["num_attention_heads"]
    if width % heads:
        return [f"config model.hidden_size ({width}) is not a multiple of model.num_attention_heads ({heads})"]
    return []
