"""Helpers of the tests: small corpora written on the fly, the tiny test configs (tests/configs) and real snakemake
runs in a temporary working directory."""

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from tiny_corpus import DOCS, write_text_corpus

REPO = Path(__file__).resolve().parents[1]

CONFIGS = REPO / "tests" / "configs"
TEST_CONFIG = yaml.safe_load((CONFIGS / "tiny-data.yaml").read_text())
TINY_TRAINING = yaml.safe_load((CONFIGS / "tiny-training.yaml").read_text())


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


def training_config(workdir: Path, **overrides) -> dict:
    """The two-source corpus with a tiny BERT that trains in seconds."""
    config = two_source_config(workdir)
    config.update(json.loads(json.dumps(TINY_TRAINING)))
    for section, values in overrides.items():
        config[section] = {**config.get(section, {}), **values}
    return config
