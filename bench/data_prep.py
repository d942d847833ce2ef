"""Data preparation side by side, on one corpus and one trained tokenizer:

1. limit:   the bare Rust tokenizer, batched, ids only (`Tokenizer.encode_batch_fast`) on texts in memory;
2. ours:    the pipeline's own tokenize and pack functions, from text shard to block file on disk;
3. classic: the classic recipe on `datasets`: `map` with truncation to 512, `map(group_texts)` with Python
            lists, `shuffle(seed=34)`, `save_to_disk`.

    python bench/data_prep.py [--repeat N] [--reps R] [--speeches N] [--workdir DIR]

Every method runs in a process of its own, started from a small parent (ru_maxrss survives exec),
single-threaded alike (RAYON_NUM_THREADS=1, TOKENIZERS_PARALLELISM=false); repetitions are interleaved
and the median time counts.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BLOCK = 512
METHODS = ("limit", "ours", "classic")
ENV = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}


def prepare(workdir: Path, repeat: int, speeches: int | None) -> None:
    """One text shard of the embedded corpus (its first `speeches`, repeated `repeat` times, no dedup) and a
    tokenizer trained on it."""
    from snakebert.data.dedup import find_duplicates
    from snakebert.data.ingest import ingest_shard
    from snakebert.data.shards import embedded_files
    from snakebert.data.tokenizer import train_tokenizer

    clean = {"unicode_normalization": "NFC", "strip_patterns": [], "normalize_whitespace": True, "min_chars": 1}
    source = {"name": "sotu", "type": "embedded", "corpus": "sotu"}
    raw = workdir / "raw/sotu/shard-00000.arrow"
    raw.parent.mkdir(parents=True, exist_ok=True)
    ingest_shard(source, clean, embedded_files("sotu")[:speeches] * repeat, 0, str(raw), str(raw.with_suffix(".json")))
    find_duplicates([str(raw)], str(workdir / "duplicates.arrow"), enabled=False)
    settings = {"vocab_size": 8000, "min_frequency": 2, "lowercase": True, "sample_chars": 50_000_000}
    train_tokenizer(
        [str(raw)],
        [str(raw.with_suffix(".json"))],
        str(workdir / "duplicates.arrow"),
        {**settings, "model_max_length": BLOCK},
        str(workdir / "tokenizer"),
    )


def folder_bytes(path: Path) -> int:
    return (
        sum(file.stat().st_size for file in path.rglob("*") if file.is_file()) if path.is_dir() else path.stat().st_size
    )


def run_limit(workdir: Path) -> dict:
    from tokenizers import Tokenizer

    from snakebert.data.corpus import shard_texts

    tokenizer = Tokenizer.from_file(str(workdir / "tokenizer/tokenizer.json"))
    batches = [texts.to_pylist() for texts in shard_texts(str(workdir / "raw/sotu/shard-00000.arrow"))]
    start = time.perf_counter()
    tokens = sum(len(encoding.ids) for batch in batches for encoding in tokenizer.encode_batch_fast(batch))
    return {"seconds": time.perf_counter() - start, "tokens": tokens, "kept": None, "bytes": None}


def run_ours(workdir: Path) -> dict:
    from snakebert.data.pack import pack_shard
    from snakebert.data.tokens import tokenize_shard

    out = workdir / "ours"
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    counts = tokenize_shard(
        str(workdir / "raw/sotu/shard-00000.arrow"),
        str(workdir / "tokenizer"),
        str(workdir / "duplicates.arrow"),
        str(out / "tokens.arrow"),
        str(out / "tokens.json"),
    )
    packed = pack_shard(str(out / "tokens.arrow"), BLOCK, str(out / "blocks.arrow"), str(out / "blocks.json"))
    seconds = time.perf_counter() - start
    kept = packed["blocks"] * BLOCK
    return {"seconds": seconds, "tokens": counts["tokens"], "kept": kept, "bytes": folder_bytes(out / "blocks.arrow")}


def run_classic(workdir: Path) -> dict:
    import datasets
    from transformers import AutoTokenizer

    out = workdir / "classic"
    shutil.rmtree(out, ignore_errors=True)
    tokenizer = AutoTokenizer.from_pretrained(workdir / "tokenizer")
    raw = datasets.Dataset.from_file(str(workdir / "raw/sotu/shard-00000.arrow")).select_columns(["text"])
    cache = tempfile.mkdtemp(dir=workdir)

    def tokenize(examples):
        return tokenizer(examples["text"], return_special_tokens_mask=True, truncation=True, max_length=BLOCK)

    def group_texts(examples):
        concatenated = {key: sum(examples[key], []) for key in examples}
        total = len(concatenated["input_ids"]) // BLOCK * BLOCK
        return {key: [values[i : i + BLOCK] for i in range(0, total, BLOCK)] for key, values in concatenated.items()}

    start = time.perf_counter()
    tokenized = raw.map(tokenize, batched=True, remove_columns=["text"], cache_file_name=f"{cache}/tok.arrow")
    grouped = tokenized.map(group_texts, batched=True, cache_file_name=f"{cache}/group.arrow")
    grouped.shuffle(seed=34, indices_cache_file_name=f"{cache}/shuffle.arrow").save_to_disk(str(out))
    seconds = time.perf_counter() - start
    kept = len(grouped) * BLOCK
    return {"seconds": seconds, "tokens": kept, "kept": kept, "bytes": folder_bytes(out)}


def measure(method: str, workdir: Path) -> dict:
    """Run one method in a child process; add its peak RSS."""
    command = [sys.executable, __file__, "--child", method, "--workdir", str(workdir)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env={**os.environ, **ENV}, text=True)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"{method} failed (status {status})")
    return {**json.loads(output.splitlines()[-1]), "peak_rss_mb": usage.ru_maxrss / 1024}


def report(results: dict[str, list[dict]]) -> dict:
    """Median figures per method, and the ratios against the goals."""
    corpus = results["ours"][0]["tokens"]
    rows = {}
    for method, runs in results.items():
        seconds = statistics.median(run["seconds"] for run in runs)
        counted = runs[0]["kept"] if method == "classic" else runs[0]["tokens"]
        rows[method] = {
            "tokens_per_second": counted / seconds,
            "seconds": seconds,
            "bytes_per_token": runs[0]["bytes"] / runs[0]["kept"] if runs[0]["kept"] else None,
            "peak_rss_mb": max(run["peak_rss_mb"] for run in runs),
            "tokens_kept": runs[0]["kept"],
            "kept_fraction": runs[0]["kept"] / corpus if runs[0]["kept"] is not None else None,
        }
    rows["ratios"] = {
        "ours/limit (goal >= 0.9)": rows["ours"]["tokens_per_second"] / rows["limit"]["tokens_per_second"],
        "ours/classic (goal >= 1.5)": rows["ours"]["tokens_per_second"] / rows["classic"]["tokens_per_second"],
        "ours bytes/token (goal <= 2.05)": rows["ours"]["bytes_per_token"],
        "ours tokens lost (goal < 0.001)": 1 - rows["ours"]["kept_fraction"],
    }
    rows["corpus_tokens"] = corpus
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1, help="the embedded corpus this many times (12 MB each)")
    parser.add_argument("--speeches", type=int, default=None, help="only the first N speeches (smoke tests)")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions per method")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--child", choices=("prepare", *METHODS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "prepare":
        prepare(args.workdir, args.repeat, args.speeches)
        return
    if args.child:
        print(json.dumps({"limit": run_limit, "ours": run_ours, "classic": run_classic}[args.child](args.workdir)))
        return
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="snakebert-bench-"))
    preparation = ["--child", "prepare", "--workdir", str(workdir), "--repeat", str(args.repeat)]
    preparation += ["--speeches", str(args.speeches)] if args.speeches else []
    subprocess.run([sys.executable, __file__, *preparation], check=True)  # in a child: this process stays small
    results = {method: [] for method in METHODS}
    for _ in range(args.reps):
        for method in METHODS:
            results[method].append(measure(method, workdir))
    print(json.dumps(report(results), indent=1))


if __name__ == "__main__":
    main()
