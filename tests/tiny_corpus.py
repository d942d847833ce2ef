"""A tiny corpus of short documents, shared by the main tests and the HPU contract tests."""

from pathlib import Path

DOCS = [
    "The committee met on Tuesday and approved the budget for the coming year.",
    "Rivers carry sediment from the mountains down to the sea, building deltas over centuries.",
    "A well-tuned engine runs quietly; a neglected one coughs, rattles and eventually stalls.",
    "The library opens at nine, closes at five, and lends books to anyone with a card.",
    "Bakers rise early: dough must rest, ovens must heat, and bread must cool before slicing.",
    "Winter storms closed the pass for weeks, so the village lived on stored grain and patience.",
]


def write_text_corpus(folder: Path, docs=DOCS, repeat: int = 3) -> list[Path]:
    """One document per .txt file (each repeated a few times with a number so that blocks fill up)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, doc in enumerate(docs):
        path = folder / f"doc-{index:02d}.txt"
        path.write_text(" ".join(f"{doc} ({copy})" for copy in range(repeat)), encoding="utf-8")
        paths.append(path)
    return paths
