"""What a message may quote of a value it did not write (a config value, a column name of a user's file): Hub tokens
blanked, at most SHOWN_CHARS characters. Imports nothing beyond the standard library, so every job can use it."""

import re

SECRET_VALUE = re.compile(r"hf_[A-Za-z0-9]{8,}")  # a Hub token's shape, blanked in any message
SHOWN_CHARS = 200  # the longest text a message quotes


def short(text: str) -> str:
    """`text` with Hub tokens blanked and cut to SHOWN_CHARS."""
    text = SECRET_VALUE.sub("hf_***", text)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"... ({len(text)} characters)"
