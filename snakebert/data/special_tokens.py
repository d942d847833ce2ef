"""The special-token roles every tokenizer of the pipeline fills: one definition for the tokenizer job, which sets
them, and the manifest job, which records their ids (a leaf module, so that neither job's code digest takes in the
other's code)."""

SPECIAL_ROLES = ("pad_token", "unk_token", "cls_token", "sep_token", "mask_token")
