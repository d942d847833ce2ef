"""The report: plots and a summary built by the main command, assembled by `snakemake --report`."""

import json

import numpy as np
import pytest
from helpers import run_script, snakemake

from snakebert.machine import cpu_model, machine
from snakebert.report import REPORT_FILES
from snakebert.report.data_plot import document_lengths, truncated_share


def test_snakemake_report_holds_the_plots_the_summary_and_the_workflow_description(trained_copy, tmp_path):
    html = tmp_path / "report.html"
    snakemake(trained_copy, "--report", str(html), "--configfile", str(trained_copy / "test-config.yaml"))
    text = html.read_text()
    for path in REPORT_FILES.values():
        assert f'"{path}"' in text
    assert "by what became of them" in text and "learning-rate schedule" in text
    assert "(200 tokens)" in text and "blocks of 16" in text


def test_summary_states_the_run_figures(trained):
    summary = (trained / "results/report/summary.html").read_text()
    training = json.loads((trained / "results/model/training_metrics.json").read_text())
    evaluation = json.loads((trained / "results/eval/metrics.json").read_text())
    manifest = json.loads((trained / "results/dataset/manifest.json").read_text())
    assert f"<td>{training['steps']} x {training['global_batch_size']}</td>" in summary
    assert f"{training['train_samples_per_second']:,.1f} samples/s" in summary
    assert f"{evaluation['mlm_loss']:.3f}, {evaluation['perplexity']:,.1f}" in summary
    assert f"{evaluation['masked_tokens']:,} ({evaluation['predictions_per_block']} per block)" in summary
    assert f"<td>jobs (segments): steps of each</td><td>1: 1-{training['steps']}</td>" in summary
    assert f"<td>{manifest['totals']['docs']} / {manifest['totals']['docs_read']}</td>" in summary
    assert evaluation["machine"] == machine("cpu")  # this machine, which ran the evaluation job
    assert f"<td>measured on</td><td>{cpu_model()} ({evaluation['machine']['cpu_capability']})</td>" in summary


def test_the_summary_answers_first_one_line_per_task_and_protocol_coloured_by_its_verdict(trained):
    """Each task's "did pretraining pay?", fine-tuned and probed, before the data, training and details: the line of
    the task's own details, its row marked by its verdict (yes, no, or open)."""
    summary = (trained / "results/report/summary.html").read_text()
    results = json.loads((trained / "results/finetune/party/metrics.json").read_text())
    data = summary.index('<th colspan="2">Data</th>')
    answers = summary[:data]
    assert answers.count("<tr class=") == 2, answers  # one task, two protocols
    for protocol, found in (("fine-tuned", results), ("linear probe", results["linear_probe"])):
        verdict = found["pretraining_gain"]["verdict"]
        marked = verdict if verdict in ("yes", "no") else "open"
        row = f'<tr class="{marked}"><td>party: did pretraining pay? ({protocol})</td><td>{verdict}: '
        assert row in answers, answers
        details = summary.index(f"<td>did pretraining pay? ({protocol})</td><td>{verdict}: ")  # the task's own rows
        assert details > data


def test_document_lengths_come_from_the_token_shards(trained):
    shards = sorted(str(path) for path in (trained / "results/tokens").glob("*/*.arrow"))
    lengths = document_lengths(shards)
    manifest = json.loads((trained / "results/dataset/manifest.json").read_text())
    assert len(lengths) == manifest["totals"]["docs"] and lengths.sum() == manifest["totals"]["tokens"]
    assert truncated_share(np.array([10, 600]), 512) == pytest.approx(522 / 610)


def test_plots_are_byte_identical_from_run_to_run(trained, tmp_path):
    tokens = sorted(str(path) for path in (trained / "results/tokens").glob("*/*.arrow"))
    manifest = str(trained / "results/dataset/manifest.json")
    model, metrics = str(trained / "results/model"), str(trained / "results/eval/metrics.json")
    for name in ("data", "training"):
        out = tmp_path / f"{name}.svg"
        args = ["--manifest", manifest, *tokens] if name == "data" else ["--model", model, "--eval-metrics", metrics]
        assert run_script(f"plot_{name}.py", *args, "--out", str(out)).returncode == 0
        assert out.read_bytes() == (trained / f"results/report/{name}.svg").read_bytes()


def test_a_history_without_training_loss_is_refused_and_leaves_no_plot(trained, tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "log_history.json").write_text(json.dumps([{"step": 10, "eval_loss": 5.0}]))
    out = tmp_path / "training.svg"
    done = run_script("plot_training.py", "--model", str(model), "--eval-metrics",
                      str(trained / "results/eval/metrics.json"), "--out", str(out))  # fmt: skip
    assert done.returncode == 1
    assert f"{model / 'log_history.json'}: no training loss was logged" in done.stderr
    assert not out.exists()
