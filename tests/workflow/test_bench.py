"""The benchmarks still run (tiny inputs, a repetition or two): their figures are printed, not asserted as timings."""

import json
import statistics
import subprocess
import sys

import pytest
import yaml
from helpers import REPO, TINY_TRAINING
from transformers import BertConfig, BertModel


def run_bench(*args: str) -> dict:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = max(index for index, line in enumerate(lines) if line == "{")  # the report: the last JSON printed
    return json.loads("\n".join(lines[start:]))


def test_data_prep_bench_reports_every_method_and_ratio(tmp_path):
    report = run_bench("bench/data_prep.py", "--speeches", "3", "--reps", "1", "--workdir", str(tmp_path))
    assert set(report) == {"limit", "ours", "run_mlm", "tutorial", "ingest", "ingest_gzip", "ratios", "corpus_tokens"}
    assert report["ours"]["tokens_kept"] <= report["corpus_tokens"]
    assert report["run_mlm"]["tokens_kept"] == report["ours"]["tokens_kept"]  # both pack whole documents
    assert report["tutorial"]["tokens_kept"] < report["ours"]["tokens_kept"]  # the tutorial's recipe truncates
    assert report["ours"]["bytes_per_token"] > 1.99  # uint16, plus the Arrow framing of a few blocks
    assert report["run_mlm"]["bytes_per_token"] > 7  # int32 ids, three int8 masks
    assert report["ingest_gzip"]["megabytes_on_disk"] < report["ingest"]["megabytes_on_disk"]
    assert all(value > 0 for value in report["ratios"].values())


def test_train_loader_bench_reports_its_ratios(data_half):
    report = run_bench(
        "bench/train_loader.py", "--manifest", str(data_half / "results/dataset/manifest.json"),
        "--tokenizer", str(data_half / "results/tokenizer"), "--steps", "2", "--reps", "1",
    )  # fmt: skip
    assert set(report["steps_per_second"]) == {"ours", "in_memory", "run_mlm"}
    assert all(len(runs) == 1 and runs[0] > 0 for runs in report["steps_per_second_runs"].values())
    assert report["ours/in_memory (goal >= 0.97)"] > 0 and report["ours/run_mlm (goal >= 1.0)"] > 0


@pytest.mark.parametrize("start", ["tiny", "base"])
def test_gpu_bench_runs_both_paths_interleaved_and_reports_their_ratios_on_the_cpu(tmp_path, start):
    model = ["--tiny"]
    if start == "base":  # a continued run's base without an MLM head: both paths start from its encoder
        config = BertConfig(vocab_size=120, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, max_position_embeddings=64)  # fmt: skip
        BertModel(config).save_pretrained(tmp_path / "base")
        model = ["--init-from", str(tmp_path / "base")]
    report = run_bench(
        "bench/gpu.py", "--device", "cpu", *model, "--steps", "3", "--warmup", "1", "--batch", "2", "--seq", "64",
        "--repeats", "2", "--out", str(tmp_path / "gpu.json"),
    )  # fmt: skip
    assert report == json.loads((tmp_path / "gpu.json").read_text())
    assert report["device"] == "cpu" and report["settings"]["repeats"] == 2
    assert report["init_from"] == (str(tmp_path / "base") if start == "base" else None)
    if start == "base":  # the base's dimensions and vocabulary: 6 x (one layer + embeddings) + attention
        assert report["gflop_per_token"] == pytest.approx(
            (6 * (4 * 16 * 16 + 2 * 16 * 32 + 16 * 120) + 12 * 16 * 64) / 1e9
        )
    for arm in ("ours", "plain"):
        assert len(report["runs"][arm]) == 2 and all(run["samples_per_second"] > 0 for run in report["runs"][arm])
        each = [run["samples_per_second"] for run in report["runs"][arm]]
        assert report["median"][arm]["samples_per_second"] == pytest.approx(statistics.median(each))
    for key in ("samples_per_second", "tokens_per_second"):
        pairs = zip(report["runs"]["ours"], report["runs"]["plain"], strict=True)  # one pair per repetition
        each = [ours[key] / plain[key] for ours, plain in pairs]
        ratio = report["ours/plain"][key]
        assert ratio["per_repetition"] == pytest.approx(each)
        assert ratio["median"] == pytest.approx(statistics.median(each))
        assert (ratio["min"], ratio["max"]) == pytest.approx((min(each), max(each)))


def test_scaling_bench_reports_memory_cores_and_overhead(tmp_path):
    report = run_bench(
        "bench/scaling.py", "--speeches", "4", "--reps", "1", "--scale", "2", "--shards", "5",
        "--workdir", str(tmp_path),
        "--validation-fraction", "0.4",  # shards of a few blocks: the manifest needs a validation block
        "--vocab", "1000",  # what 4 speeches fill: the tokenizer refuses a sample far short of its vocabulary
    )  # fmt: skip
    assert report["memory_and_tokenizer"]["tokenize+pack peak RSS 4x/1x (goal <= 1.2)"] > 0
    assert report["cores"]["x2"]["shards"] > report["cores"]["x1"]["shards"]
    assert report["cores"]["x2"]["cores 2 speed-up (goal >= 1.7)"] > 0
    assert report["many_shards"]["shards"] == 5 and report["many_shards"]["rerun with nothing to do"]["seconds"] > 0


def test_static_shapes_bench_reports_losses_and_speeds_of_both_paths(data_half):
    report = run_bench(
        "bench/static_shapes.py", "--manifest", str(data_half / "results/dataset/manifest.json"),
        "--tokenizer", str(data_half / "results/tokenizer"), "--loss-steps", "3", "--steps", "2", "--reps", "1",
    )  # fmt: skip
    assert report["predictions_per_block"] >= 1 and report["seeds"] == [42]
    for key in ("held_out_loss (evaluate_model.evaluate, mean over seeds)",
                "held_out_loss_bernoulli (the old evaluation, mean over seeds)"):  # fmt: skip
        assert set(report[key]) == {"new", "old", "new/old", "new-old"}
        assert report[key]["new"] > 0 and report[key]["old"] > 0 and report[key]["new/old"] > 0
    assert set(report["per_seed"]["42"]) == {"new", "old"}
    assert set(report["steps_per_second"]) == {"new", "old"} and min(report["steps_per_second"].values()) > 0
    assert report["new/old steps/s (goal >= 0.97)"] > 0 and len(report["new/old steps/s per repetition"]) == 1


def test_calibration_bench_compares_both_projections_with_the_run(tmp_path):
    tiny = {"model": {**TINY_TRAINING["model"], "max_position_embeddings": 128}, "data": {"block_size": 16},
            "pretrain": {"phases": [], "per_device_train_batch_size": 8}}  # fmt: skip
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(tiny))
    report = run_bench(
        "bench/calibration.py", "--steps", "12", "--calibrate-steps", "3", "--warmup", "2", "--speeches", "8",
        "--settings", str(tmp_path / "tiny.yaml"), "--workdir", str(tmp_path),
    )  # fmt: skip
    assert report["steps"] == 12 and report["actual_wall_seconds"] > report["actual_train_seconds"] > 0
    for name in ("calibration_before", "calibration_after"):
        assert report[name]["projected_wall_seconds"] > report[name]["projected_train_seconds"] > 0
        assert report[name]["wall actual/projected"] > 0


def test_near_dedup_bench_reports_quality_throughput_memory_and_the_corpus(tmp_path):
    report = run_bench(
        "bench/near_dedup.py", "--originals", "30", "--copies", "3", "--throughput-docs", "40", "--reps", "1",
        "--memory-sizes", "2000,4000", "--speeches", "4", "--workdir", str(tmp_path), "--out", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert report == json.loads((tmp_path / "r.json").read_text())
    assert set(report) == {"settings", "quality", "throughput", "clustering_memory", "corpus"}
    quality = report["quality"]
    assert quality["documents"] == 30 + 7 * 3 and set(quality["thresholds"]) == {"0.500", "0.700", "0.719", "0.800",
                                                                                    "0.900"}  # fmt: skip
    for row in quality["thresholds"].values():
        assert all(0 <= row[name][kind] <= 1 for name in ("ours", "datasketch") for kind in ("precision", "recall"))
    assert quality["recall_by_edit"]["words 1%"]["ours"] == quality["recall_by_edit"]["words 1%"]["datasketch"] == 1
    assert all(abs(quality["signature_error"][name]["mean"]) < 0.05 for name in ("ours", "datasketch"))
    assert all(value > 0 for value in report["throughput"]["ratios"].values())
    assert all(report["throughput"][name]["signed"] == 40 for name in ("ours", "datatrove", "datasketch"))
    memory = report["clustering_memory"]
    assert memory["4000"]["removed"] == memory["4000"]["planted"] == 40
    if memory["marginal_bytes_per_document"] > 0:  # at 2,000 and 4,000 documents the peak RSS may not grow at all
        assert memory["projected_100M_gb"] > memory["4000"]["peak_rss_mb"] * 2**20 / 1e9
    else:
        assert "projected_100M_gb" not in memory and "peak RSS" in memory["projected_100M_gb_not_measured"]
    per_document = (memory["4000"]["seconds"] - memory["2000"]["seconds"]) / 2000  # a difference of timings: any sign
    assert memory["projected_100M_seconds"] == pytest.approx(memory["4000"]["seconds"] + per_document * (1e8 - 4000))
    corpus = report["corpus"]
    assert corpus["files"] == corpus["documents"] == corpus["signed"] == 4 and corpus["removed"]["near"] == 0
    assert 0 <= corpus["most_similar_pair"]["jaccard"] < 0.5  # four distinct speeches
    seconds = corpus["seconds"]  # milliseconds each here: their difference may take either sign on a busy machine
    assert all(value > 0 for value in seconds.values())
    added = seconds["signatures"] + seconds["find_duplicates_near"] - seconds["find_duplicates_exact"]
    assert corpus["near-dedup added seconds"] == pytest.approx(added)
