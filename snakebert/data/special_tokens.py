"""The special-token roles every tokenizer of the pipeline fills: one definition for the tokenizer job, which sets
them, and the manifest job, which records their ids (a leaf module, so that neither job's code digest takes in the
other's code)."""

from ..errors import DataError

SPECIAL_ROLES = ("pad_token", "unk_token", "cls_token", "sep_token", "mask_token")


def check_roles(tokenizer, what: str, needs: str) -> None:
    """Refuse a tokenizer without a token for every role, naming `what` it is and who `needs` them."""
    missing = [role for role in SPECIAL_ROLES if getattr(tokenizer, role) is None]
    if missing:
        raise DataError(f"{what} has no {', '.join(missing)}: {needs} needs each of {', '.join(SPECIAL_ROLES)}")
