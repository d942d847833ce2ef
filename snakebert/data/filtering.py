"""The per-shard document filters: a document's language (`py3langid`), then the quality rules of Gopher
(repetition, quality) and C4, each datatrove 0.10.1's own class (`GopherRepetitionFilter`, `GopherQualityFilter`,
`C4QualityFilter`) given its config keys as its keyword arguments, so their names and defaults are the published
ones. A document goes through the rules in that order and is removed by the first it fails; the rest are written in
shard order, as they came: filters remove, they never rewrite. C4's rule judges a document by the lines it would
keep (a document left with none is removed by it), but a kept document keeps all its lines.

- Language: py3langid's model, shipped in its package, classifies the first `LANGUAGE_PREFIX` characters of a
  document (cut at whitespace, so the time a document takes is bounded); it is kept when its language is one of
  `languages` with a probability of at least `language_threshold`, else removed and counted under its language.
- Bounded time: datatrove's Gopher rules, in pure Python, take about a second a megabyte (measured: 15 s for
  gopher_repetition on 10 MB), so they judge a document by its first `GOPHER_PREFIX` characters (cut at whitespace:
  some 170,000 English words, past gopher_quality's 100,000 of `max_doc_words`, so a longer document is still
  removed as too long); C4's rule, which is fast, sees it whole.
- Words and sentences: datatrove's English splitter needs spaCy, which the pipeline does not install; the rules
  are given word_tokenizer.py's in its place, which splits words as spaCy does.
- Nothing of a document reaches a log: datatrove's logger is off while a shard is filtered.

Each rule's counts are the documents it removed and their characters. Each rule keeps a sample of what it removed:
the first `SAMPLES` in shard order, each its row, datatrove's reason and the first `SAMPLE_CHARS` characters."""

from collections import Counter

import pyarrow as pa
from datatrove.data import Document
from datatrove.pipeline.filters import C4QualityFilter, GopherQualityFilter, GopherRepetitionFilter
from loguru import logger
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from ..files.arrow_streams import stream_batches, stream_writer
from ..files.json_files import read_fields, write_json
from .clean import text_hashes
from .ingest import SCHEMA
from .word_tokenizer import EnglishSplitter

LANGUAGE = "language"
QUALITY_RULES = {"gopher_repetition": GopherRepetitionFilter, "gopher_quality": GopherQualityFilter,
                 "c4": C4QualityFilter}  # fmt: skip
N_GRAM_LISTS = ("top_n_grams", "dup_n_grams")  # lists of [n, fraction] in JSON, tuples for datatrove
LANGUAGE_PREFIX = 10_000
GOPHER_PREFIX = 1_000_000  # ~170,000 English words: past gopher_quality's max_doc_words, 100,000
PREFIXED = ("gopher_repetition", "gopher_quality")  # the rules that judge a document by its GOPHER_PREFIX
SAMPLES = 10
SAMPLE_CHARS = 1_000
NO_LINES = "no_lines_kept"
SPLITTER = EnglishSplitter()  # one for every rule: datatrove caches a text's words by text and splitter


def prefix(text: str, limit: int) -> str:
    """The first `limit` characters of `text`, less a word the limit cuts (unless it is the only one)."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    words = cut.rsplit(maxsplit=1)
    return words[0] if len(words) == 2 and cut[-1].strip() and text[limit].strip() else cut


class LanguageRule:
    """Documents in one of `languages`, with a probability of at least `threshold`; `removed` counts the others by
    their language."""

    def __init__(self, languages: list[str], threshold: float):
        self.languages, self.threshold = set(languages), threshold
        self.identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        self.removed = Counter()

    def filter(self, doc: Document) -> bool | tuple[bool, str]:
        code, probability = self.identifier.classify(prefix(doc.text, LANGUAGE_PREFIX))
        if code in self.languages and probability >= self.threshold:
            return True
        self.removed[code] += 1
        return False, f"language {code} {probability:.2f}"


def quality_rule(name: str, options: dict):
    """datatrove's filter `name`, given the rule's config keys but `enabled` and the pipeline's word splitter."""
    arguments = {key: value for key, value in options.items() if key != "enabled"}
    for key in N_GRAM_LISTS:
        if key in arguments:
            arguments[key] = tuple(tuple(pair) for pair in arguments[key])
    return QUALITY_RULES[name](**arguments, language=SPLITTER)


def rules(settings: dict) -> dict:
    """The enabled rules, {name: rule}, in the order they run."""
    chosen = {}
    if settings["languages"]:
        chosen[LANGUAGE] = LanguageRule(settings["languages"], settings["language_threshold"])
    quality = settings["quality"]
    return chosen | {name: quality_rule(name, quality[name]) for name in QUALITY_RULES if quality[name]["enabled"]}


def _verdict(rule, text: str, row: int, name: str) -> str | None:
    """None when the document `text` passes `rule`, else the reason it fails. The rule judges a copy of its own (C4's
    edits its copy's lines)."""
    judged = Document(text=prefix(text, GOPHER_PREFIX) if name in PREFIXED else text, id=str(row))
    verdict = rule.filter(judged)
    if isinstance(verdict, tuple):
        return verdict[1]
    if not verdict:
        return name
    return NO_LINES if not judged.text else None


def filter_shard(raw_shard: str, raw_stats: str, settings: dict, out: str, stats: str, samples: str) -> dict:
    """Filter the text shard `raw_shard` into `out` (the kept documents, in order, each with its hash); write its
    stats (ingest's `raw_stats` with the documents and characters kept, and each rule's counts) to `stats` and each
    rule's sample to `samples`; return the stats."""
    counts = read_fields(raw_stats, {"source": str, "chars": int})
    chosen = rules(settings)
    removed = {name: {"docs": 0, "chars": 0} for name in chosen}
    examples = {name: [] for name in chosen}
    row = docs = chars = 0
    logger.disable("datatrove")
    try:
        with stream_writer(out, SCHEMA) as writer:
            for batch in stream_batches(raw_shard, "text shard"):
                kept = []
                for text in batch.column("text").to_pylist():
                    for name, rule in chosen.items():
                        reason = _verdict(rule, text, row, name)
                        if reason is not None:
                            removed[name]["docs"] += 1
                            removed[name]["chars"] += len(text)
                            if len(examples[name]) < SAMPLES:
                                examples[name].append({"row": row, "reason": reason, "text": text[:SAMPLE_CHARS]})
                            break
                    else:
                        kept.append(text)
                    row += 1
                if kept:
                    texts = pa.array(kept, pa.string())
                    writer.write_batch(pa.record_batch([texts, pa.array(text_hashes(texts))], schema=SCHEMA))
                    docs += len(kept)
                    chars += sum(map(len, kept))
    finally:
        logger.enable("datatrove")
    languages = dict(sorted(chosen[LANGUAGE].removed.items())) if LANGUAGE in chosen else {}
    counts |= {"docs": docs, "chars": chars, "filtered": removed, "languages": languages}
    write_json(samples, examples)
    write_json(stats, counts)
    return counts
