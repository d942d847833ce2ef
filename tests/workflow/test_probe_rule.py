"""Fill-mask probes through the workflow: results/eval/probes.json and the summary's section from the configured
prompts, a prompt without [MASK] refused when the workflow is parsed, and what a probe edit reruns."""

import html
import json

import pytest
from helpers import TINY_TRAINING, planned_jobs, snakemake, training_config

PROBES = TINY_TRAINING["evaluate"]["probes"]


@pytest.fixture
def trained_config(trained):
    """Dry runs rewrite the trained run's config file: put it back after the test."""
    configfile = trained / "test-config.yaml"
    original = configfile.read_text()
    yield trained
    configfile.write_text(original)


def test_probes_file_holds_the_configured_prompts_and_the_summary_shows_them(trained):
    results = json.loads((trained / "results/eval/probes.json").read_text())
    assert [(probe["prompt"], probe["answers"]) for probe in results["probes"]] == [
        (probe["prompt"], probe.get("answers", [])) for probe in PROBES
    ]
    assert results["top_k"] == 5 and all(len(probe["predictions"]) == 5 for probe in results["probes"])
    assert results["answered"] == 1 and results["hit_rate_top5"] in (0.0, 1.0)
    summary = (trained / "results/report/summary.html").read_text()
    assert "Fill-mask probes" in summary
    for probe in results["probes"]:
        assert html.escape(probe["prompt"]) in summary
        top1 = probe["predictions"][0]
        assert html.escape(f"{top1['token']!r} {top1['probability']:.1%}") in summary
    common = results["most_common_top1"]
    assert html.escape(f"{common['prompts']} of 2 prompts answer {common['token']!r}") in summary


def test_a_prompt_without_mask_is_refused_when_the_workflow_is_parsed(workdir):
    config = training_config(workdir, evaluate={"probes": [{"prompt": "the library opens at nine ."}]})
    done = snakemake(workdir, "-n", config=config, check=False)
    assert done.returncode != 0
    refusal = "config evaluate.probes[0]: the prompt 'the library opens at nine .' has 0 [MASK], exactly one is needed"
    assert refusal in done.stdout + done.stderr
    assert not (workdir / "results").exists()


def test_a_probe_edit_reruns_the_probes_and_the_summary_only(trained_config):
    probes = [*PROBES, {"prompt": "bakers rise [MASK] .", "answers": ["the"]}]
    changed = training_config(trained_config, evaluate={"probes": probes})
    assert planned_jobs(trained_config, changed) == {"all": 1, "fill_mask_probes": 1, "report_summary": 1}


def test_no_probes_no_probes_job(trained_config):
    changed = training_config(trained_config, evaluate={"probes": []})
    assert planned_jobs(trained_config, changed) == {"all": 1, "report_summary": 1}
    done = snakemake(trained_config, "-n", "-p", "--forcerun", "report_summary", config=changed)
    assert "probes.json" not in done.stdout
