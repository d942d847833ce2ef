"""Shared helpers: small corpora written on the fly and real snakemake runs in a temporary working directory."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tiny_corpus import DOCS, write_text_corpus

REPO = Path(__file__).resolve().parents[1]

TEST_CONFIG = {
    "clean": {"min_chars": 10},
    "tokenizer": {"vocab_size": 200, "min_frequency": 1, "sample_chars": 1_000_000},
    "data": {"block_size": 16, "validation_fraction": 0.1, "seed": 34},
}


def write_jsonl(path: Path, records) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def snakemake_env() -> dict:
    """The environment for a workflow run: this interpreter's `python` first on PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def snakemake(
    workdir: Path, *args: str, config: dict | None = None, check: bool = True, snakefile: Path = REPO / "Snakefile"
):
    """Run the real workflow in `workdir` (with `config` merged over the default); return the finished process."""
    command = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "--cores", "2", *args]
    if config is not None:
        configfile = workdir / "test-config.yaml"
        configfile.write_text(yaml.safe_dump(config, sort_keys=False))
        command += ["--configfile", str(configfile)]
    done = subprocess.run(command, cwd=workdir, env=snakemake_env(), capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"snakemake failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def planned_jobs(
    workdir: Path, config: dict | None = None, *targets: str, snakefile: Path = REPO / "Snakefile"
) -> dict[str, int]:
    """{rule: job count} of what a dry run would do now ({} when nothing is to be done)."""
    output = snakemake(workdir, "-n", *targets, config=config, snakefile=snakefile)
    text = output.stdout + output.stderr
    if "Nothing to be done" in text:
        return {}
    lines = text.split("Job stats:", 1)[1].splitlines()
    jobs = {}
    for line in lines[3:]:
        fields = line.split()
        if len(fields) != 2 or fields[0] == "total":
            break
        jobs[fields[0]] = int(fields[1])
    return jobs


def two_source_config(workdir: Path, **overrides) -> dict:
    """Two `files` sources (text files, 3 shards; jsonl, 1 shard) with tiny settings."""
    write_text_corpus(workdir / "corpus" / "texts")
    write_jsonl(workdir / "corpus" / "notes.jsonl", [{"text": doc.upper(), "id": i} for i, doc in enumerate(DOCS)])
    config = {
        "sources": [
            {"name": "texts", "type": "files", "paths": ["corpus/texts/*.txt"], "format": "text", "shard_mb": 0.0006},
            {"name": "notes", "type": "files", "paths": ["corpus/notes.jsonl"], "format": "jsonl"},
        ],
        **json.loads(json.dumps(TEST_CONFIG)),
    }
    for section, values in overrides.items():
        config[section] = {**config.get(section, {}), **values}
    return config


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


TINY_TRAINING = {
    "model": {
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        "max_position_embeddings": 32,
    },
    "pretrain": {
        "max_steps": 60,
        "per_device_train_batch_size": 8,
        "learning_rate": 0.005,
        "warmup_steps": 5,
        "logging_steps": 5,
        "save_steps": 20,
        "save_total_limit": 2,
        "eval_steps": 20,
        "eval_blocks": 8,
        "per_device_eval_batch_size": 8,
        "dataloader_num_workers": 0,
    },
    "evaluate": {"batch_size": 8},
}


def training_config(workdir: Path, **overrides) -> dict:
    """The two-source corpus with a tiny BERT that trains in seconds."""
    config = two_source_config(workdir)
    config.update(json.loads(json.dumps(TINY_TRAINING)))
    for section, values in overrides.items():
        config[section] = {**config.get(section, {}), **values}
    return config


@pytest.fixture(scope="session")
def trained(tmp_path_factory) -> Path:
    """The whole pipeline (rule all) with the tiny BERT, run once for the session."""
    workdir = tmp_path_factory.mktemp("trained")
    snakemake(workdir, config=training_config(workdir))
    return workdir
