"""The files and folders a config names as inputs, one by one (a `files` source's globs are planned, and checked, by
data/shards.py): none may lie in a folder the workflow writes (data/shards.WORKFLOW_FOLDERS), whether it exists yet
or not and however it is reached (a symlink is followed). Snakemake deletes a job's outputs before the job reruns,
so a base read from `results/model` is deleted by the rerun that would train from it."""

import os

from .data.shards import workflow_folder


def named_inputs(config: dict) -> list[tuple[str, str]]:
    """(config key, path or name) of every single input the config names: a continued run's base, the tokenizer's
    base, each compared model, each `files` task's files, and each Hub source's and Hub task's path (a local folder,
    or a Hub id)."""
    named = [("model.init_from", config["model"]["init_from"]), ("tokenizer.base", config["tokenizer"].get("base"))]
    compared = enumerate(config["finetune"]["compare"])
    named += [(f"finetune.compare[{index}].model", entry["model"]) for index, entry in compared]
    for index, task in enumerate(config["finetune"]["tasks"]):
        named += [(f"finetune.tasks[{index}].{key}", task.get(key)) for key in ("train", "validation", "test", "path")]
    named += [(f"sources[{index}].path", source.get("path")) for index, source in enumerate(config["sources"])]
    return [(key, name) for key, name in named if name]


def own_output_problems(config: dict) -> list[str]:
    """Each named input that lies in the workflow's own outputs, named with the folder it lies in (or whose name no
    file can have: a NUL character)."""
    problems = []
    for key, name in named_inputs(config):
        if "\0" in name:
            problems.append(f"config {key}: {name!r} holds a NUL character, which no file name or Hub id can; fix it")
            continue
        folder = workflow_folder(name)
        if folder is None:
            continue
        target = os.path.realpath(name)
        reached = "" if target == os.path.abspath(name) else f" (a link to {target})"
        problems.append(
            f"config {key}: {name}{reached} is in the workflow's own {folder}/, which the workflow writes: a rerun "
            f"deletes what lies there before it rebuilds it, and the input with it; copy it out of {folder}/ and name "
            "the copy"
        )
    return problems
