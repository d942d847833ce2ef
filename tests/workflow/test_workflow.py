"""Real snakemake runs of the data half (target: the manifest): it builds, and a change reruns exactly what
depends on it."""

import json
import shutil

from helpers import MANIFEST, REPO, TEST_CONFIG, planned_jobs, snakemake, two_source_config, write_jsonl
from shared_builds import copy_build
from tiny_corpus import DOCS

from snakebert.cards.dataset import dataset_card
from snakebert.data.manifest import read_manifest
from snakebert.report.data_plot import plot_data

DATA_RULES = {"ingest_shard", "find_duplicates", "train_tokenizer", "tokenize_shard", "pack_shard", "build_manifest"}


def test_data_half_builds_then_a_second_run_does_nothing(workdir):
    config = two_source_config(workdir)
    assert planned_jobs(workdir, config, MANIFEST) == {
        "build_manifest": 1,
        "find_duplicates": 1,
        "ingest_shard": 4,
        "pack_shard": 4,
        "tokenize_shard": 4,
        "train_tokenizer": 1,
    }
    snakemake(workdir, MANIFEST, config=config)
    manifest = json.loads((workdir / "results/dataset/manifest.json").read_text())
    assert [shard["source"] for shard in manifest["shards"]] == ["texts"] * 3 + ["notes"]
    assert manifest["totals"]["docs"] == 12
    assert planned_jobs(workdir, config, MANIFEST) == {}


def test_vocab_size_change_retrains_and_retokenizes_without_reingesting(data_half, workdir):
    copy_build(data_half, workdir)
    changed = two_source_config(workdir, tokenizer={"vocab_size": 150})
    assert planned_jobs(workdir, changed, MANIFEST) == {
        "build_manifest": 1,
        "pack_shard": 4,
        "tokenize_shard": 4,
        "train_tokenizer": 1,
    }


def test_block_size_change_repacks_only(data_half, workdir):
    copy_build(data_half, workdir)
    changed = two_source_config(workdir, data={"block_size": 8})
    assert planned_jobs(workdir, changed, MANIFEST) == {"build_manifest": 1, "pack_shard": 4}
    snakemake(workdir, MANIFEST, config=changed)
    assert json.loads((workdir / "results/dataset/manifest.json").read_text())["block_size"] == 8


GERMAN = "Der Ausschuss tagte am Dienstag und genehmigte den Haushalt für das kommende Jahr nach langer Beratung."


def filters(min_doc_words: int = 5, rows: int = 8) -> dict:
    """The clean section with every filter on: the language filter (English), Gopher's quality rules (documents of at
    least `min_doc_words` words: the tiny corpus's are short; and no share of words with a letter: its copy numbers,
    "(0)", are three words without one) and near-dedup (FineWeb's but for `rows`)."""
    gopher = {"enabled": True, "min_doc_words": min_doc_words, "max_non_alpha_words_ratio": None}
    quality = {"gopher_quality": gopher}
    near = {"enabled": True, "rows": rows}
    return {**TEST_CONFIG["clean"], "languages": ["en"], "quality": quality, "near_dedup": near}


def test_the_filters_remove_what_they_should_and_a_filters_settings_rerun_no_ingest(data_half, workdir):
    copy_build(data_half, workdir)
    # each config written writes the corpus anew: all before the near copy and the German note are added
    on, stricter, rows = (two_source_config(workdir, clean=clean) for clean in (filters(), filters(6), filters(rows=7)))
    opted_out = {**on, "sources": [on["sources"][0], {**on["sources"][1], "filter": False}]}  # the notes pass whole
    copy = f"Minutes of the meeting. {(workdir / 'corpus/texts/doc-00.txt').read_text()}"  # a text with a header
    notes = [{"text": doc.upper(), "id": index} for index, doc in enumerate(DOCS)]
    write_jsonl(workdir / "corpus/notes.jsonl", [*notes, {"text": copy, "id": 6}, {"text": GERMAN, "id": 7}])
    after = {"build_manifest": 1, "find_duplicates": 1, "pack_shard": 4, "tokenize_shard": 4, "train_tokenizer": 1}
    signed = {**after, "minhash_shard": 4}
    assert planned_jobs(workdir, on, MANIFEST) == {**signed, "filter_shard": 4, "ingest_shard": 1}
    snakemake(workdir, MANIFEST, config=on)
    totals = json.loads((workdir / "results/dataset/manifest.json").read_text())["totals"]
    assert (totals["docs_read"], totals["docs"], totals["near_duplicates"], totals["duplicates"]) == (14, 4, 1, 0)
    # Gopher's two stop words ("the", "and", ...: lower-case) are not in the upper-cased notes, nor in two texts
    assert {rule: counts["docs"] for rule, counts in totals["filtered"].items()} == {"language": 1, "gopher_quality": 8}
    assert totals["languages_removed"] == {"de": 1}
    samples = json.loads((workdir / "results/filtered/notes/shard-00000.samples.json").read_text())
    assert [(sample["row"], sample["reason"]) for sample in samples["language"]] == [(7, "language de 1.00")]
    assert {sample["reason"] for sample in samples["gopher_quality"]} == {"gopher_enough_stop_words"}
    card = dataset_card(read_manifest(str(workdir / MANIFEST))).text  # the card and the report count each rule
    assert "Removed by language: de 1." in card and "(`clean.quality.gopher_quality`) | 8 | 57.14% |" in card
    plot_data(
        str(workdir / MANIFEST),
        sorted(map(str, (workdir / "results/tokens").glob("*/*.arrow"))),
        str(workdir / "data.svg"),
    )
    legend = (workdir / "data.svg").read_text()
    assert all(f"<!-- {label} -->" in legend for label in ("language", "gopher quality", "near-duplicates"))
    [shown] = json.loads((workdir / "results/dedup/duplicate_samples.json").read_text())["near"]
    assert (shown["removed"]["shard"], shown["removed"]["text"]) == ("notes/shard-00000", copy)
    assert (shown["repeats"]["shard"], shown["repeats"]["row"]) == ("texts/shard-00000", 0)
    assert planned_jobs(workdir, stricter, MANIFEST) == {**signed, "filter_shard": 4}  # a threshold: no ingest
    assert planned_jobs(workdir, rows, MANIFEST) == signed  # near-dedup's: neither ingest nor the filters
    # the notes opt out: their shard is ingest's (signed anew), with no filter job; the texts' filtered shards stay
    assert planned_jobs(workdir, opted_out, MANIFEST) == {**after, "minhash_shard": 1}
    snakemake(workdir, MANIFEST, config=opted_out)
    totals = json.loads((workdir / "results/dataset/manifest.json").read_text())["totals"]
    assert (totals["docs_read"], totals["docs"], totals["near_duplicates"], totals["languages_removed"]) == (
        14,
        11,
        1,
        {},
    )
    assert {rule: counts["docs"] for rule, counts in totals["filtered"].items()} == {"language": 0, "gopher_quality": 2}


def test_settings_outside_the_data_rules_rerun_no_data_rule(data_half, workdir):
    copy_build(data_half, workdir)
    changed = two_source_config(workdir, hub={"private": False, "tokenizer_repo": "someone/tok"})
    assert DATA_RULES.isdisjoint(planned_jobs(workdir, changed))


def test_editing_one_file_reingests_its_shard_and_leaves_other_sources_alone(data_half, workdir):
    config = two_source_config(copy_build(data_half, workdir))
    raw = sorted((workdir / "results/raw").glob("*/*.arrow"))
    before = {path: path.stat().st_mtime_ns for path in raw}
    write_jsonl(workdir / "corpus/notes.jsonl", [{"text": "An entirely new note about harbours and ships."}])
    assert planned_jobs(workdir, config, MANIFEST) == {
        "build_manifest": 1,
        "find_duplicates": 1,
        "ingest_shard": 1,
        "pack_shard": 4,
        "tokenize_shard": 4,
        "train_tokenizer": 1,
    }
    snakemake(workdir, MANIFEST, config=config)
    changed = {path.relative_to(workdir).as_posix() for path in raw if path.stat().st_mtime_ns != before[path]}
    assert changed == {"results/raw/notes/shard-00000.arrow"}


def test_editing_a_script_reruns_what_it_made_and_what_follows(tmp_path):
    workflow = tmp_path / "workflow"
    workflow.mkdir()
    shutil.copy(REPO / "Snakefile", workflow / "Snakefile")
    for folder in ("rules", "scripts", "snakebert", "config", "report", "profiles", "envs"):
        shutil.copytree(REPO / folder, workflow / folder, ignore=shutil.ignore_patterns("__pycache__"))
    workdir = tmp_path / "work"
    workdir.mkdir()
    config = two_source_config(workdir)
    snakefile = workflow / "Snakefile"
    snakemake(workdir, MANIFEST, config=config, snakefile=snakefile)
    with (workflow / "scripts/pack_shard.py").open("a") as script:
        script.write("\n# an edit\n")
    assert planned_jobs(workdir, config, MANIFEST, snakefile=snakefile) == {"build_manifest": 1, "pack_shard": 4}
    with (workflow / "snakebert/data/corpus.py").open("a") as module:
        module.write("\n# an edit to a module that the tokenizer and duplicates jobs import (relatively)\n")
    assert planned_jobs(workdir, config, MANIFEST, snakefile=snakefile) == {
        "build_manifest": 1,
        "find_duplicates": 1,
        "pack_shard": 4,
        "tokenize_shard": 4,
        "train_tokenizer": 1,
    }


def test_dry_run_shows_every_job_for_hub_sources_before_any_data_exist(workdir):
    config = {
        "sources": [
            {"name": "books", "type": "hub", "path": "bookcorpus", "shards": 3},
            {"name": "wiki", "type": "hub", "path": "wikipedia", "config": "20220301.en", "shards": 5},
        ],
    }
    jobs = planned_jobs(workdir, config)
    assert jobs["ingest_shard"] == jobs["tokenize_shard"] == 8
    assert jobs["pack_shard"] == 16  # each shard packed at 512 and at 128, for the default config's two phases
    assert jobs["train_tokenizer"] == jobs["build_manifest"] == jobs["pretrain"] == jobs["evaluate"] == 1
    assert not (workdir / "results").exists()


def test_dry_run_prints_reasons_and_commands(workdir):
    done = snakemake(workdir, "-n", "-p", config=two_source_config(workdir))
    assert "reason: Missing output files" in done.stdout
    assert "tokenize_shard.py --tokenizer results/tokenizer" in done.stdout


def test_a_target_builds_only_what_it_needs(workdir):
    config = two_source_config(workdir)
    assert planned_jobs(workdir, config, "results/tokenizer") == {
        "find_duplicates": 1,
        "ingest_shard": 4,
        "train_tokenizer": 1,
    }
    assert planned_jobs(workdir, config, "results/blocks/notes/shard-00000.arrow") == {
        "find_duplicates": 1,
        "ingest_shard": 4,
        "pack_shard": 1,
        "tokenize_shard": 1,
        "train_tokenizer": 1,
    }


def test_identical_runs_give_byte_identical_outputs(data_half, workdir):
    snakemake(workdir, MANIFEST, config=two_source_config(workdir))  # the shared build ran in another folder
    digests = []
    for built in (data_half, workdir):
        files = sorted(built.glob("results/**/*.*"))
        digests.append({path.relative_to(built).as_posix(): path.read_bytes() for path in files})
    assert digests[0].keys() == digests[1].keys()
    assert "results/tokenizer/tokenizer.json" in digests[0]
    assert digests[0] == digests[1]
