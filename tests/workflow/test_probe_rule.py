"""Fill-mask probes through the workflow: results/eval/probes.json and the summary's section from the configured
prompts, and what a probe edit reruns (a prompt without [MASK] is refused by config_checks: tests/unit)."""

import html
import json
import re

from helpers import TINY_TRAINING, planned_jobs, snakemake, training_config

PROBES = TINY_TRAINING["evaluate"]["probes"]


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


def test_a_probe_edit_reruns_the_probes_and_the_summary_only(trained_copy):
    probes = [*PROBES, {"prompt": "bakers rise [MASK] .", "answers": ["the"]}]
    changed = training_config(trained_copy, evaluate={"probes": probes})
    assert planned_jobs(trained_copy, changed) == {"all": 1, "fill_mask_probes": 1, "report_summary": 1}


def test_ten_thousand_probes_reach_their_job_in_a_file_named_by_its_content(trained_copy):
    """Not on the command line, which the kernel limits to 128 kB an argument: a file the parse writes, another one
    when the probes change (so the job reruns), the command a line of a few hundred characters."""
    probes = [{"prompt": f"prompt {number} says [MASK] .", "answers": ["the"]} for number in range(10_000)]
    done = snakemake(trained_copy, "-n", "-p", config=training_config(trained_copy, evaluate={"probes": probes}))
    [command] = [line for line in done.stdout.splitlines() if "fill_mask_probes.py" in line]
    assert len(command) < 500
    path = re.search(r"--probes (\S+)", command).group(1)
    assert json.loads((trained_copy / path).read_text()) == probes
    again = snakemake(trained_copy, "-n", "-p", config=training_config(trained_copy, evaluate={"probes": probes[:1]}))
    assert path not in again.stdout and "fill_mask_probes.py" in again.stdout


def test_no_probes_no_probes_job(trained_copy):
    changed = training_config(trained_copy, evaluate={"probes": []})
    assert planned_jobs(trained_copy, changed) == {"all": 1, "report_summary": 1}
    done = snakemake(trained_copy, "-n", "-p", "--forcerun", "report_summary", config=changed)
    assert "probes.json" not in done.stdout
