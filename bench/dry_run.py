"""What a dry run costs: `snakemake -n` on the default config and on the classic one, this checkout against another
commit of the workflow, beside a one-rule workflow (snakemake's own floor) on the same machine, in one run.

    python bench/dry_run.py --before REF [--repeats 7] [--out FILE]

Every arm runs as its own `python -m snakemake` process in a working directory of its own (kept across repetitions,
as a user's checkout is), after one warm-up run that is not counted (Python's bytecode cache, the page cache). The
arms alternate (step_clock.interleaved); the report holds every repetition's seconds, each arm's median, and per
repetition each workflow's time over the one-rule workflow's and this checkout's over the other commit's. A second
floor arm is a workflow of trivial jobs (an output and a shell command each), as many as the classic config's DAG
holds: snakemake's own cost for a DAG of that size, none of it the project's. A third, the project's parse with those
jobs, is this checkout whose `rule all` asks for the trivial jobs instead of the pipeline's targets (the classic
config, every rule read and checked): the least a dry run of a DAG of that size can cost with the project's parse.
"""

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # step_clock imports the package
from step_clock import interleaved, ratios  # noqa: E402

CONFIGS = {"default": [], "classic": ["--configfile", "config/bert-base-dl1.yaml"]}
ONE_RULE = 'rule all:\n    output:\n        "done.txt",\n    shell:\n        "touch {output}"\n'


TRIVIAL_RULE = 'rule trivial_job:\n    output:\n        "out/{index}.txt",\n    shell:\n        "touch {output}"\n'


def trivial_targets(count: int) -> str:
    """`rule all`'s input line asking for `count - 1` trivial jobs (TRIVIAL_RULE)."""
    return f'        expand("out/{{index}}.txt", index=range({count - 1})),\n'


def trivial_jobs(count: int) -> str:
    """A Snakefile of `count` jobs: rule all and `count - 1` jobs of one rule that touches its output."""
    return f"rule all:\n    input:\n{trivial_targets(count)}\n\n{TRIVIAL_RULE}"


def parse_with_trivial_jobs(folder: Path, count: int) -> Path:
    """A copy of this checkout in `folder` whose `rule all` asks for `count - 1` trivial jobs in place of the
    pipeline's targets; its Snakefile."""
    shutil.copytree(REPO, folder, ignore=shutil.ignore_patterns(".git", ".snakemake", "results", "logs"))
    snakefile = folder / "Snakefile"
    targets = "        final_targets(),\n"
    text = snakefile.read_text()
    if targets not in text:
        raise SystemExit(f"{snakefile}: no `{targets.strip()}` in rule all to replace")
    snakefile.write_text(text.replace(targets, trivial_targets(count)) + "\n\n" + TRIVIAL_RULE)
    return snakefile


def dry_run(snakefile: Path, workdir: Path, *args: str) -> tuple[float, str]:
    """Seconds of one `snakemake -n` of `snakefile` in `workdir`, which must succeed, and what it printed."""
    command = [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "-s", str(snakefile), *args]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return seconds, done.stdout + done.stderr


def timed(snakefile: Path, workdir: Path, *args: str) -> float:
    return dry_run(snakefile, workdir, *args)[0]


def job_count(printed: str) -> int:
    """The number of jobs a dry run listed (the "total" row of its job stats)."""
    return int(re.search(r"^total\s+(\d+)$", printed, re.MULTILINE).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit to compare this checkout with")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        scratch = Path(temporary)
        before = scratch / "before"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(before), args.before], check=True)
        try:
            (scratch / "one-rule").mkdir()
            (scratch / "one-rule" / "Snakefile").write_text(ONE_RULE)
            runs = {"one rule": lambda: timed(scratch / "one-rule" / "Snakefile", scratch / "one-rule")}
            for checkout, name in ((before, "before"), (REPO, "after")):
                for config, options in CONFIGS.items():
                    workdir = scratch / f"{name}-{config}"
                    workdir.mkdir()
                    options = [option.replace("config/", f"{checkout}/config/") for option in options]
                    runs[f"{name}, {config}"] = lambda c=checkout, w=workdir, o=options: timed(c / "Snakefile", w, *o)
            classic = [option.replace("config/", f"{REPO}/config/") for option in CONFIGS["classic"]]
            jobs = job_count(dry_run(REPO / "Snakefile", scratch / "after-classic", *classic)[1])
            floor = scratch / "trivial-jobs"
            floor.mkdir()
            (floor / "Snakefile").write_text(trivial_jobs(jobs))
            trivial = f"{jobs} trivial jobs"
            runs[trivial] = lambda: timed(floor / "Snakefile", floor)
            parse_snakefile = parse_with_trivial_jobs(scratch / "parse-with-trivial-jobs", jobs)
            (scratch / "parse-with-trivial-jobs-work").mkdir()
            parse_only = f"the classic parse with {jobs} trivial jobs"
            runs[parse_only] = lambda: timed(parse_snakefile, scratch / "parse-with-trivial-jobs-work", *classic)
            for run in runs.values():
                run()  # warm-up, not counted
            seconds = interleaved(list(runs), args.repeats, lambda arm: runs[arm]())
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(before)], check=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    report = {
        "before": args.before,
        "after": commit.stdout.strip(),
        "seconds": seconds,
        "median_seconds": {arm: statistics.median(values) for arm, values in seconds.items()},
        "over_one_rule": {
            arm: ratios(values, seconds["one rule"]) for arm, values in seconds.items() if arm != "one rule"
        },
        "classic_over_trivial_jobs": {
            arm: ratios(seconds[f"{arm}, classic"], seconds[trivial]) for arm in ("before", "after")
        },
        "classic_over_its_parse_with_trivial_jobs": ratios(seconds["after, classic"], seconds[parse_only]),
        "after_over_before": {
            config: ratios(seconds[f"after, {config}"], seconds[f"before, {config}"]) for config in CONFIGS
        },
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
