"""The embedded tasks, built from an embedded corpus's own text and metadata, each example grouped by its speech so
that a split never divides one. `sotu-party`: the speaker's party (Democratic or Republican) from a passage of a State
of the Union address given since 1853 (181 speeches, 78 Democratic and 103 Republican, 1.56 M words). `sotu-names`:
the names in a lowercased sentence of any of the 249 addresses, a name being a run of capitalised words past the
sentence's first word (`I` aside), tagged NAME in IOB2: capitalisation restoration of names, a word-tagging task made
from raw text as NVIDIA's punctuation-and-capitalization model is, which a bag of words cannot do. `sotu-cloze`:
extractive question answering made from raw text as the cloze tasks of reading comprehension (CNN/Daily Mail, the
Children's Book Test) are: a sentence with one of its names blanked out is the question, the two sentences before
and after it the context, and every place of that name in the context a gold answer."""

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..data.shards import package_folder
from .examples import GROUP, LABEL, PAIR, TEXT
from .squad_examples import ID, SCHEMA

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


def _speeches(task_name: str) -> list[tuple[dict, str]]:
    """Every address of the embedded corpus, its metadata row and its text, in speech order."""
    data = package_folder("sotu", f"embedded task {task_name!r}") / "data"
    with open(data / "metadata.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [(row, (data / "speeches" / f"{row['fileid']}.txt").read_text(encoding="utf-8")) for row in rows]


def sotu_party(task: dict) -> pa.Table:
    """Every kept passage with its speaker's party, grouped by speech, in speech order."""
    speeches = [
        (speech, text)
        for speech, text in _speeches("sotu-party")
        if int(speech["year"]) >= SOTU_FIRST_YEAR and speech["party"] in SOTU_PARTIES
    ]
    rows = {TEXT: [], LABEL: [], GROUP: []}
    for speech, text in speeches:
        for passage in passages(text, task["passage_words"], task["passages_per_speech"]):
            rows[TEXT].append(passage)
            rows[LABEL].append(speech["party"])
            rows[GROUP].append(speech["fileid"])
    return pa.table({name: pa.array(values, pa.string()) for name, values in rows.items()})


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“‘(]?[A-Z])")  # a stop, space, then a capital: a new sentence
WORD = re.compile(r"\w+(?:['’.-]\w+)*|[^\w\s]")  # a word (with its inner apostrophes, dots and hyphens), or a sign
NAME_WORDS = (10, 50)  # the sentences a task keeps: of 10 to 50 words and signs


def name_tags(words: list[str]) -> list[str]:
    """IOB2 NAME tags of a sentence's words: each run of capitalised words past the first word (`I` aside)."""
    tags = []
    for index, word in enumerate(words):
        named = index > 0 and word[0].isupper() and word != "I"
        tags.append(("I-NAME" if tags and tags[-1] != "O" else "B-NAME") if named else "O")
    return tags


def _sentences(text: str) -> list[str]:
    """A speech's sentences, in order."""
    return [sentence for paragraph in text.split("\n") for sentence in SENTENCE_END.split(paragraph) if sentence]


def _evenly(found: list, keep: int | None) -> list:
    """`keep` of `found`, evenly spaced (None: all)."""
    if keep is None or len(found) <= keep:
        return found
    return [found[int(index)] for index in np.floor((np.arange(keep) + 0.5) * len(found) / keep)]


def sotu_names(task: dict) -> pa.Table:
    """`sentences_per_speech` evenly spaced sentences of each address (of NAME_WORDS words and signs), lowercased,
    with their words' NAME tags, grouped by speech, in speech order."""
    rows = {TEXT: [], LABEL: [], GROUP: []}
    for speech, text in _speeches("sotu-names"):
        sentences = [WORD.findall(sentence) for sentence in _sentences(text)]
        kept = [words for words in sentences if NAME_WORDS[0] <= len(words) <= NAME_WORDS[1]]
        for words in _evenly(kept, task["sentences_per_speech"]):
            rows[TEXT].append([word.lower() for word in words])
            rows[LABEL].append(name_tags(words))
            rows[GROUP].append(speech["fileid"])
    types = {TEXT: pa.list_(pa.string()), LABEL: pa.list_(pa.string()), GROUP: pa.string()}
    return pa.table({name: pa.array(values, types[name]) for name, values in rows.items()})


BLANK = "____"  # where a cloze question's name was
CLOZE_CONTEXT = 2  # the sentences before and after a cloze question's that make its context


def names_at(sentence: str) -> list[tuple[int, int]]:
    """The character spans of a sentence's names (name_tags' runs of capitalised words past the first)."""
    spans = [match.span() for match in WORD.finditer(sentence)]
    found = []
    for (start, end), tag in zip(spans, name_tags([sentence[a:b] for a, b in spans]), strict=True):
        if tag == "B-NAME":
            found.append((start, end))
        elif tag == "I-NAME":
            found[-1] = (found[-1][0], end)
    return found


def cloze_question(sentences: list[str], index: int) -> tuple[str, str, list[dict]] | None:
    """The cloze question of sentence `index` (of NAME_WORDS words and signs): the sentence with its first name that
    its context also holds blanked out, the context (CLOZE_CONTEXT sentences on each side, the sentence left out), and
    every place of that name in the context as a gold answer; None where no name of the sentence is in its context."""
    sentence = sentences[index]
    if not NAME_WORDS[0] <= len(WORD.findall(sentence)) <= NAME_WORDS[1]:
        return None
    context = " ".join(
        sentences[max(index - CLOZE_CONTEXT, 0) : index] + sentences[index + 1 : index + 1 + CLOZE_CONTEXT]
    )
    for start, end in names_at(sentence):
        name = sentence[start:end]
        places = [match.start() for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", context)]
        if places:
            answers = [{"text": name, "start": place} for place in places]
            return sentence[:start] + BLANK + sentence[end:], context, answers
    return None


def sotu_cloze(task: dict) -> pa.Table:
    """`questions_per_speech` evenly spaced cloze questions of each address (cloze_question), grouped by speech, in
    speech order, each with an id of its speech and sentence."""
    rows = {TEXT: [], PAIR: [], LABEL: [], ID: [], GROUP: []}
    for speech, text in _speeches("sotu-cloze"):
        sentences = _sentences(text)
        found = [(index, cloze_question(sentences, index)) for index in range(len(sentences))]
        for index, (question, context, answers) in _evenly(
            [each for each in found if each[1]], task["questions_per_speech"]
        ):
            for name, value in zip(
                rows, (question, context, answers, f"{speech['fileid']}-{index}", speech["fileid"]), strict=True
            ):
                rows[name].append(value)
    return pa.table(rows, schema=SCHEMA)


@dataclass(frozen=True)
class EmbeddedTask:
    read: Callable[[dict], pa.Table]
    description: str
    problem: str


EMBEDDED_TASKS = {
    "sotu-party": EmbeddedTask(
        sotu_party,
        "the speaker's party (Democratic or Republican) of a passage of a State of the Union address since 1853, "
        "split by speech",
        "classification",
    ),
    "sotu-names": EmbeddedTask(
        sotu_names,
        "the names (runs of capitalised words past a sentence's first) in a lowercased sentence of a State of the "
        "Union address, split by speech",
        "token_classification",
    ),
    "sotu-cloze": EmbeddedTask(
        sotu_cloze,
        "cloze questions: the name blanked out of a sentence of a State of the Union address, found in the two "
        "sentences before and after it, split by speech",
        "extractive_qa",
    ),
}
