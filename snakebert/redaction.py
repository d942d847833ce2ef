"""What a message may quote of a value it did not write (a config value, a column name of a user's file, a library's
error, a URL from the environment): Hub tokens blanked, every URL's user information, query and fragment (where
credentials ride: `http://TOKEN@host/`, `?token=...`) replaced by `***`, at most SHOWN_CHARS characters. Imports
nothing beyond the standard library, so every job can use it."""

import re

SECRET_VALUE = re.compile(r"hf_[A-Za-z0-9]{8,}")  # a Hub token's shape, blanked in any message
SHOWN_CHARS = 200  # the longest text a message quotes
# A URL in a text, up to the next space: its scheme starts a word and is at most 32 characters, so that a long run of
# letters costs one pass, not one per letter (an unbounded scheme made a 100,000-letter value take seconds).
URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}://\S*")
URL_PARTS = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<authority>[^/?#]*)(?P<path>[^?#]*)(?P<rest>.*)", re.S
)
HIDDEN = "***"


def credential_parts(value: str) -> list[str]:
    """The parts of the URL `value` that can carry a credential and that it holds (user information, a query, a
    fragment); none for a text that is not a URL (`scheme://...`)."""
    url = URL_PARTS.fullmatch(value.strip())
    if url is None:
        return []
    query, hash_mark, _ = url["rest"].partition("#")
    found = {"user information": "@" in url["authority"], "a query": bool(query), "a fragment": bool(hash_mark)}
    return [part for part, held in found.items() if held]


def _redacted_url(found: re.Match) -> str:
    url = URL_PARTS.fullmatch(found[0])
    authority = url["authority"]
    host = f"{HIDDEN}@{authority.rpartition('@')[2]}" if "@" in authority else authority
    query, hash_mark, _ = url["rest"].partition("#")
    hidden = (f"?{HIDDEN}" if query else "") + (f"#{HIDDEN}" if hash_mark else "")
    return f"{url['scheme']}{host}{url['path']}{hidden}"


def redact(text: str) -> str:
    """`text` with Hub tokens blanked and the user information, query and fragment of every URL in it hidden:
    `https://***@mlflow.lab/?***`."""
    return SECRET_VALUE.sub("hf_***", URL.sub(_redacted_url, text))


def short(text: str) -> str:
    """`text` redacted and cut to SHOWN_CHARS."""
    text = redact(text)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"... ({len(text)} characters)"
