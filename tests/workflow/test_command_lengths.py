"""No shell command grows with the plan. Snakemake runs each job's command as one argument of `bash -c`, which the
kernel caps at 128 KiB (MAX_ARG_STRLEN): every list a job reads (the shards, the runs of the learning-rate grid, the
seeds, the folds, the tasks) reaches its script in a file named by its content (snakebert/files/settings_files.py).
Dry runs only: a small plan beside one with 30 times the shards, 5 times the rates, 3 times the seeds and the tasks,
and more folds."""

import copy
import re
import shlex
from collections import defaultdict

import pytest
import yaml
from helpers import REPO, printed_settings, snakemake, training_config
from snakemake.utils import update_config
from tiny_corpus import DOCS, write_text_corpus

from snakebert.config_validation import validate_config
from snakebert.files.settings_files import ARGUMENTS_FILE, expand_arguments
from snakebert.finetune.plan import models, task_job_count

MAX_ARG_STRLEN = 128 * 1024
HUB = {"push": True, "tokenizer_repo": "someone/t", "dataset_repo": "someone/d", "model_repo": "someone/m"}
FINETUNE_RULES = ("prepare_task", "finetune_baselines", "finetune", "choose_rate", "linear_probe", "summarize_finetune")


def plan_config(workdir, documents: int, rates: int, seeds: int, folds: int, tasks: int) -> dict:
    """The tiny training config over `documents` files (2 a shard), fine-tuning `tasks` tasks of `folds` folds at
    `rates` rates of one digit each (lr-0.00N), the search with seed 1 and the chosen rate with the other `seeds`."""
    config = training_config(workdir, hub=HUB)
    write_text_corpus(workdir / "corpus" / "texts", docs=DOCS * (documents // len(DOCS)))
    split = {"validation_fraction": 0.15, "test_fraction": 0, "folds": folds}
    task = {"type": "embedded", "passage_words": 20, "passages_per_speech": 2, "split": split}
    recipe = {**config["finetune"]["recipe"], "learning_rate": [round(0.001 * rate, 3) for rate in range(1, rates + 1)]}
    config["finetune"] = {**config["finetune"], "seeds": seeds, "search_seeds": 1, "recipe": recipe}
    config["finetune"]["tasks"] = [{**task, "name": f"t{number}"} for number in range(1, tasks + 1)]
    return config


def planned(workdir, config: dict) -> tuple[dict[str, list[str]], dict[str, int]]:
    """({rule: its jobs' shell commands}, {rule: job count}) of a dry run."""
    printed = snakemake(workdir, "-n", "-p", config=config).stdout
    commands, rule = defaultdict(list), None
    for line in printed.splitlines():
        started = re.match(r"(?:local)?rule (\w+):$", line)
        rule = started.group(1) if started else rule
        if line.startswith("Shell command: "):
            commands[rule].append(line.removeprefix("Shell command: "))
    return dict(commands), {rule: len(found) for rule, found in commands.items()}


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict[str, tuple]:
    """The small and the large plan: (working directory, config, commands, job counts) each, at the same depth (the
    scripts' paths in the commands are relative to the working directory)."""
    found = {}
    sizes = {"small": (6, 2, 2, 2, 1), "large": (240, 10, 6, 3, 3)}  # documents, rates, seeds, folds, tasks
    for name, (documents, rates, seeds, folds, tasks) in sizes.items():
        workdir = tmp_path_factory.mktemp(name) / "work"
        workdir.mkdir()
        config = plan_config(workdir, documents, rates, seeds, folds, tasks)
        found[name] = (workdir, config, *planned(workdir, config))
    return found


def arguments(command: str, workdir) -> list[str]:
    """The arguments of a command run in `workdir`, its arguments file read in place (its log's redirection dropped)."""
    words = shlex.split(command.split(" > ", 1)[0])
    at = words.index(ARGUMENTS_FILE) + 1
    words[at] = str(workdir / words[at])
    return expand_arguments(words)


def listed(command: str, workdir, flag: str) -> list[str]:
    """The values after `flag` in the arguments of a command run in `workdir`, up to the next flag."""
    words = arguments(command, workdir)
    start = words.index(flag) + 1
    end = next((index for index in range(start, len(words)) if words[index].startswith("--")), len(words))
    return words[start:end]


def test_no_command_grows_with_the_shards_rates_seeds_folds_or_tasks(plans):
    _, _, small, _ = plans["small"]
    _, _, large, jobs = plans["large"]
    assert set(large) == set(small)
    assert jobs["ingest_shard"] >= 20 * len(small["ingest_shard"])
    assert jobs["finetune"] == 3 * 2 * 3 * (10 + 5)  # tasks, models, folds: every rate with seed 1, then seeds 2 to 6
    longest = {rule: max(map(len, commands)) for rule, commands in small.items()}
    for rule, commands in large.items():
        assert max(map(len, commands)) <= longest[rule] + 16, rule  # a shard index's digits
        assert max(map(len, commands)) < MAX_ARG_STRLEN // 32, rule


def test_no_command_carries_a_config_sections_json(plans):
    """A section reaches its job as a settings file named by its content: the printed command stays readable."""
    workdir, config, commands, _ = plans["large"]
    printed = [command for found in commands.values() for command in found]
    assert [command for command in printed if "{" in command or "[" in command] == []
    settings = printed_settings(workdir, commands["pretrain"][0], "pretrain.py", "--pretrain")
    assert settings.items() >= config["pretrain"].items()


def test_each_job_reads_its_whole_lists_from_its_file(plans):
    workdir, _, commands, jobs = plans["large"]
    [manifest] = commands["build_manifest"]
    shards = listed(manifest, workdir, "--raw")
    assert len(shards) == len(listed(manifest, workdir, "--block-stats")) == jobs["ingest_shard"]
    summaries = commands["summarize_finetune"]
    assert sum(len(listed(summary, workdir, "--runs")) for summary in summaries) == jobs["finetune"]
    assert sum(len(listed(summary, workdir, "--linear-probes")) for summary in summaries) == 6 * jobs["linear_probe"]
    assert sum(len(listed(summary, workdir, "--chosen")) for summary in summaries) == jobs["choose_rate"] == 3 * 2
    searched = {len(listed(command, workdir, "--search")) for command in commands["choose_rate"]}
    assert searched == {10 * 3}  # every rate with seed 1, on each fold
    chosen = [command for command in commands["finetune"] if " --chosen " in command]
    assert len(chosen) == 3 * 2 * 3 * 5 and all(command.count("/chosen.json") == 1 for command in chosen)
    [card] = commands["model_card"]
    assert arguments(card, workdir)[-3:] == [f"results/finetune/t{number}/metrics.json" for number in (1, 2, 3)]


def test_the_plans_jobs_are_those_the_bound_counts(plans):
    """config_checks refuses a plan of more than MAX_JOBS fine-tuning jobs, counted without listing them: the count
    is the dry run's."""
    _, config, _, jobs = plans["large"]
    merged = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(merged, copy.deepcopy(config))
    validate_config(merged)
    finetune = merged["finetune"]
    counted = sum(task_job_count(task, finetune, len(models(finetune))) for task in finetune["tasks"])
    assert counted == sum(jobs[rule] for rule in FINETUNE_RULES)
