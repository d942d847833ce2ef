"""How the report and the cards word a count."""


def plural(count: int, noun: str) -> str:
    """`count` (with thousands separators) and `noun`, an s added unless the count is 1."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
