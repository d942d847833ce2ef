"""The embedded tasks, built from an embedded corpus's own metadata. `sotu-party`: the speaker's party (Democratic
or Republican) from a passage of a State of the Union address given since 1853 (181 speeches, 78 Democratic and
103 Republican, 1.56 M words), each passage grouped by its speech so that a split never divides one."""

import csv

import numpy as np
import pyarrow as pa

from ..data.shards import package_folder
from .examples import GROUP, LABEL, TEXT

SOTU_PARTIES = ("Democratic", "Republican")
SOTU_FIRST_YEAR = 1853  # from Pierce on, every president was a Democrat or a Republican (but Andrew Johnson)


def passages(text: str, words: int, keep: int | None) -> list[str]:
    """The text cut into passages of `words` words (a shorter rest is dropped, unless it is all there is), then
    `keep` of them, evenly spaced (None: all)."""
    tokens = text.split()
    found = [" ".join(tokens[start : start + words]) for start in range(0, max(len(tokens) - words, 0) + 1, words)]
    if keep is None or len(found) <= keep:
        return found
    return [found[int(index)] for index in np.floor((np.arange(keep) + 0.5) * len(found) / keep)]


def sotu_party(task: dict) -> pa.Table:
    """Every kept passage with its speaker's party, grouped by speech, in speech order."""
    data = package_folder("sotu", "embedded task 'sotu-party'") / "data"
    with open(data / "metadata.csv", encoding="utf-8", newline="") as handle:
        speeches = [
            row
            for row in csv.DictReader(handle)
            if int(row["year"]) >= SOTU_FIRST_YEAR and row["party"] in SOTU_PARTIES
        ]
    rows = {TEXT: [], LABEL: [], GROUP: []}
    for speech in speeches:
        text = (data / "speeches" / f"{speech['fileid']}.txt").read_text(encoding="utf-8")
        for passage in passages(text, task["passage_words"], task["passages_per_speech"]):
            rows[TEXT].append(passage)
            rows[LABEL].append(speech["party"])
            rows[GROUP].append(speech["fileid"])
    return pa.table({name: pa.array(values, pa.string()) for name, values in rows.items()})


EMBEDDED_TASKS = {
    "sotu-party": (
        sotu_party,
        "the speaker's party (Democratic or Republican) of a passage of a State of the Union address since 1853, "
        "split by speech",
    )
}
