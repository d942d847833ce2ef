"""A damaged file of the workflow's own (truncated by a full disk, edited by hand) is named by the job that reads
it, with what to do, and the job leaves no output; a killed job's temporaries go when the next job for the same
output starts; a `tokenizer.base` that cannot be loaded says what was tried."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from helpers import REPO, run_script

from snakebert.data.tokenizer import load_base
from snakebert.errors import DataError
from snakebert.files.json_files import write_json
from snakebert.files.settings_files import settings_file

SHARD = "texts/shard-00000"
NOT_COUNT = "not a non-negative integer"
RAW, TOKENS = (f"{{r}}/{stage}/{SHARD}.arrow" for stage in ("raw", "tokens"))  # {r}: the results folder
TOKENIZER = {"vocab_size": 200, "min_frequency": 1, "lowercase": True, "sample_chars": 1000000, "model_max_length": 16}


@pytest.fixture
def results(tiny_data, tmp_path):
    shutil.copytree(tiny_data.root / "results", tmp_path / "results")
    return tmp_path / "results"


def truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


@pytest.mark.parametrize(
    ("damaged", "script", "arguments", "out"),
    [
        ("raw", "tokenize_shard.py", ["--tokenizer", "{r}/tokenizer", "--duplicates", "{r}/dedup/duplicates.arrow",
                                      "--out", "{r}/new.arrow", "--stats", "{r}/new.json", RAW],
         "new.arrow"),
        ("tokens", "pack_shard.py", ["--block-size", "16", "--out", "{r}/new.arrow", "--stats", "{r}/new.json",
                                     TOKENS], "new.arrow"),
        ("raw", "find_duplicates.py", ["--out", "{r}/new.arrow", "--samples", "{r}/new.json", RAW], "new.arrow"),
        ("raw", "train_tokenizer.py", ["--tokenizer", "{r}/tokenizer-settings.json", "--duplicates",
                                       "{r}/dedup/duplicates.arrow", "--raw", RAW,
                                       "--stats", RAW.replace(".arrow", ".json"), "--out", "{r}/new"], "new"),
        ("tokens", "plot_data.py", ["--manifest", "{r}/dataset/manifest.json", "--out", "{r}/new.svg",
                                    TOKENS], "new.svg"),
    ],
)  # fmt: skip
def test_a_truncated_shard_is_named_with_what_to_do(results, damaged, script, arguments, out):
    (results / "tokenizer-settings.json").write_text(json.dumps(TOKENIZER))
    truncate(results / damaged / f"{SHARD}.arrow")
    done = run_script(script, *(argument.replace("{r}", str(results)) for argument in arguments))
    assert done.returncode == 1
    assert f"error: {results / damaged / SHARD}.arrow: not a readable Arrow stream (" in done.stderr
    assert "delete it and rerun to rebuild it" in done.stderr and "Traceback" not in done.stderr
    assert not (results / out).exists() and not list(results.glob(f".{out}.tmp-*"))


def build_manifest(results) -> subprocess.CompletedProcess:
    stats = {stage: [str(results / stage / f"texts/shard-0000{index}.json") for index in (0, 1)]
             for stage in ("raw", "tokens", "blocks")}  # fmt: skip
    arrows = {stage: [str(results / stage / f"texts/shard-0000{index}.arrow") for index in (0, 1)]
              for stage in ("raw", "blocks")}  # fmt: skip
    data = settings_file({"block_size": 16, "validation_fraction": 0.1, "seed": 34}, results)
    return run_script(
        "build_manifest.py", "--data", data,
        "--config-digest", "x", "--tokenizer", str(results / "tokenizer"), "--raw", *arrows["raw"],
        "--raw-stats", *stats["raw"], "--token-stats", *stats["tokens"], "--blocks", *arrows["blocks"],
        "--block-stats", *stats["blocks"], "--out", str(results / "new.json"),
    )  # fmt: skip


def test_a_damaged_stats_file_is_named_by_the_manifest_job(results):
    (results / f"blocks/{SHARD}.json").write_text('{"tokens": 12')
    done = build_manifest(results)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"error: {results / 'blocks' / SHARD}.json: not a readable stats file" in done.stderr
    assert not (results / "new.json").exists()


@pytest.mark.parametrize(
    ("stage", "edit", "message"),
    [
        ("blocks", lambda stats: [stats], "not a stats file (a JSON object expected, found list)"),
        ("blocks", lambda stats: {**stats, "blocks": None}, f"the stats file's 'blocks' is null, {NOT_COUNT}"),
        ("tokens", lambda stats: {**stats, "tokens": "12"}, f"the stats file's 'tokens' is \"12\", {NOT_COUNT}"),
        ("tokens", lambda stats: {**stats, "docs": -1}, f"the stats file's 'docs' is -1, {NOT_COUNT}"),
        ("raw", lambda stats: {key: stats[key] for key in stats if key != "chars"}, "the stats file has no 'chars'"),
        ("raw", lambda stats: {**stats, "source": 7}, "the stats file's 'source' is 7, not a string"),
        ("blocks", lambda stats: {**stats, "sha256": True}, "the stats file's 'sha256' is true, not a string"),
    ],
)  # fmt: skip
def test_a_stats_file_of_the_wrong_shape_is_named_with_its_key(results, stage, edit, message):
    path = results / f"{stage}/{SHARD}.json"
    path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    done = build_manifest(results)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"error: {path}: {message}; delete it and rerun to rebuild it" in done.stderr
    assert not (results / "new.json").exists()


def test_a_damaged_stats_file_is_named_by_the_tokenizer_job(results):
    raw = results / f"raw/{SHARD}.arrow"
    (results / f"raw/{SHARD}.json").write_text('{"chars": ')
    done = run_script(
        "train_tokenizer.py", "--tokenizer", settings_file(TOKENIZER, results),
        "--duplicates", str(results / "dedup/duplicates.arrow"),
        "--raw", str(raw), "--stats", str(raw.with_suffix(".json")), "--out", str(results / "new"),
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"error: {results / 'raw' / SHARD}.json: not a readable stats file" in done.stderr
    assert not (results / "new").exists()


def test_a_job_removes_the_temporaries_a_killed_job_left_for_its_output_only(tmp_path):
    out = tmp_path / "shard-00000.json"
    left = [tmp_path / ".shard-00000.json.tmp-4242", tmp_path / ".shard-00000.json.tmp-77"]
    (left[1]).mkdir()
    left[0].write_text("half")
    other = tmp_path / ".shard-00001.json.tmp-4242"
    other.write_text("another output's: its own job cleans it")
    write_json(out, {"docs": 1})
    assert out.read_text() == '{\n "docs": 1\n}\n'
    assert not any(path.exists() for path in left) and other.exists()


def test_a_base_tokenizer_that_cannot_be_loaded_says_what_was_tried(tmp_path):
    code = "from snakebert.data.tokenizer import load_base\nload_base('someone/bert')"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)},  # offline from the start: no retries
    )  # fmt: skip
    assert re.search(
        r"DataError: tokenizer.base 'someone/bert' could not be loaded: tried a folder \S+/someone/bert "
        r"\(there is none\), then the Hub id 'someone/bert' \(OSError: ", done.stderr
    ), done.stderr  # fmt: skip
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match=r"tokenizer.base '\S+/empty' could not be loaded: tried the folder \S+/empty"):
        load_base(str(tmp_path / "empty"))
