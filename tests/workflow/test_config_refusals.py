"""Configs refused when the workflow is read, through real snakemake runs: a secret never reaches the console or the
log, an expanding YAML file is refused at once, and one refusal of the schema and one of the checks beyond it show
that a refused config stops before any job, naming the key. Every other refusal is checked in the unit tier
(tests/unit/test_config_validation.py, test_config_checks.py)."""

import json
from pathlib import Path

import pytest
import yaml
from helpers import TEST_CONFIG, snakemake, write_jsonl
from tiny_corpus import DOCS

TOKEN = "hf_" + "Z" * 34  # a Hub token's shape
SOURCE = {"name": "notes", "type": "files", "paths": ["corpus/notes.jsonl"], "format": "jsonl"}


def config_with(workdir: Path, **sections) -> dict:
    write_jsonl(workdir / "corpus" / "notes.jsonl", [{"text": doc} for doc in DOCS])
    config = {"sources": [SOURCE], **json.loads(json.dumps(TEST_CONFIG))}
    for section, values in sections.items():
        config[section] = {**config.get(section, {}), **values}
    return config


def assert_refused_before_any_job(done, workdir: Path, *fragments: str) -> str:
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    for fragment in fragments:
        assert fragment in output, output
    assert "Traceback" not in output, output
    for folder in ("results", "checkpoints", "logs"):
        assert not (workdir / folder).exists(), f"{folder}/ left by a refused config"
    return output


def written_logs(workdir: Path) -> str:
    return "".join(path.read_text() for path in (workdir / ".snakemake" / "log").glob("*.log"))


def test_a_token_in_the_config_is_refused_and_shown_nowhere(workdir):
    hub = {"push": True, "dataset_repo": "a/b", "token": TOKEN}
    done = snakemake(workdir, config=config_with(workdir, hub=hub), check=False)
    output = assert_refused_before_any_job(done, workdir, "config hub.token: a key named like a secret is refused")
    assert TOKEN not in output
    assert written_logs(workdir), "snakemake wrote no log to check"
    assert TOKEN not in written_logs(workdir)


def test_yaml_aliases_that_expand_are_refused_at_once(workdir):
    config = config_with(workdir)
    lines = [yaml.safe_dump(config, sort_keys=False), "a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 9)]  # 9^9 values
    (workdir / "bomb.yaml").write_text("\n".join(lines) + "\n")
    done = snakemake(workdir, "-n", "--configfile", "bomb.yaml", check=False)
    output = assert_refused_before_any_job(done, workdir, "config: more than 100000 values (YAML anchors")
    assert len(output) < 20_000, f"{len(output)} characters of output"


@pytest.mark.parametrize(
    ("sections", "message"),
    [
        pytest.param(
            {"model": {"hidden_size": 33, "num_attention_heads": 2}},
            "config model.hidden_size (33) is not a multiple of model.num_attention_heads (2)",
            id="config_checks",
        ),
        pytest.param(
            {"pretrain": {"seed": 2**32}},
            "config pretrain.seed: 4294967296 is greater than the maximum of 4294967295",
            id="schema",
        ),
    ],
)
def test_settings_the_model_or_the_seeding_would_reject_are_refused_before_any_job(workdir, sections, message):
    done = snakemake(workdir, config=config_with(workdir, **sections), check=False)
    assert_refused_before_any_job(done, workdir, message)


def test_a_bad_requeue_watch_interval_is_refused_before_any_job(workdir, monkeypatch):
    monkeypatch.setenv("SNAKEBERT_REQUEUE_WATCH_SECONDS", "soon")
    done = snakemake(workdir, config=config_with(workdir), check=False)
    assert_refused_before_any_job(done, workdir, "SNAKEBERT_REQUEUE_WATCH_SECONDS='soon': the seconds between two")
