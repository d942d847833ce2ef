"""Lists too long for a command line reach their script in a file the workflow writes when it is parsed, named by its
content: every shard, run or task, read in place of `--arguments-file`, whatever the files are named."""

import argparse
import re
import sys

import pytest
from helpers import REPO, load_script

from snakebert.errors import DataError
from snakebert.files.settings_files import ARGUMENTS_FILE, expand_arguments, parse_arguments, settings_file

ODD_NAMES = ["-starts-with-a-dash.txt", "@looks-like-an-argparse-file.txt", "--arguments-file"]


def lists_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--runs", nargs="*", default=[])
    parser.add_argument("--sizes", nargs="*", type=int, default=[])
    parser.add_argument("files", nargs="*")
    return parser


def test_the_arguments_of_a_file_are_read_in_place_of_its_flag(tmp_path):
    runs = [f"results/runs/seed-{seed}.json" for seed in range(5000)]
    path = settings_file(["--runs", *runs, "--sizes", "128", "512", "--", *ODD_NAMES], tmp_path)
    args = parse_arguments(lists_parser(), ["--out", "o.json", ARGUMENTS_FILE, path])
    assert (args.out, args.runs, args.sizes, args.files) == ("o.json", runs, [128, 512], ODD_NAMES)


def test_the_flag_after_a_double_dash_is_a_file_name_and_what_the_file_holds_is_read_once(tmp_path):
    path = settings_file(["--", ARGUMENTS_FILE, "other.json"], tmp_path)
    assert expand_arguments(["--", ARGUMENTS_FILE, path]) == ["--", ARGUMENTS_FILE, path]
    assert expand_arguments(["--out", "o", ARGUMENTS_FILE, path]) == ["--out", "o", "--", ARGUMENTS_FILE, "other.json"]


@pytest.mark.parametrize("text", ['{"runs": ["a.json"]}', '["--runs", 1]', '["--runs", "a.js'])
def test_a_damaged_arguments_file_is_named_with_what_to_do(tmp_path, text):
    path = tmp_path / "arguments.json"
    path.write_text(text)
    with pytest.raises(DataError, match=rf"^{re.escape(str(path))}: not a.* arguments file .*delete it and rerun"):
        parse_arguments(lists_parser(), ["--out", "o.json", ARGUMENTS_FILE, str(path)])


def test_a_missing_arguments_file_is_named_with_what_to_do(tmp_path):
    path = tmp_path / "arguments.json"
    with pytest.raises(DataError, match=rf"^{re.escape(str(path))}: no such arguments file; .*: rerun the workflow$"):
        parse_arguments(lists_parser(), ["--out", "o.json", ARGUMENTS_FILE, str(path)])


def rules_with_arguments_files() -> dict[str, str]:
    """{rule: its script's name} of every rule whose command hands its script an arguments file."""
    found = {}
    for path in (REPO / "rules").glob("*.smk"):
        for block in re.split(r"^\s*(?:local)?rule (?=\w+:)", path.read_text(), flags=re.M)[1:]:
            if ARGUMENTS_FILE in block:
                found[block.split(":", 1)[0]] = re.search(r'script=script\("(\w+)\.py"\)', block).group(1)
    return found


def test_every_script_given_an_arguments_file_reads_it():
    scripts = rules_with_arguments_files()
    assert {"build_manifest", "choose_rate", "summarize_finetune", "push_to_hub"} <= set(scripts)  # the rules, found
    for rule, name in scripts.items():
        assert "parse_arguments(parser)" in (REPO / "scripts" / f"{name}.py").read_text(), rule


def test_build_manifest_reads_every_shard_from_the_file(tmp_path, monkeypatch):
    shards = [f"corpus/shard-{index:05d}" for index in range(3000)]  # 21,000 paths, 4 times what one argument holds
    kinds = {"--raw": ".arrow", "--raw-stats": ".json", "--token-stats": ".tokens.json", "--blocks": ".blocks",
             "--block-stats": ".blocks.json", "--phase-blocks": ".128", "--phase-block-stats": ".128.json"}  # fmt: skip
    listed = [argument for flag, suffix in kinds.items() for argument in [flag, *(s + suffix for s in shards)]]
    script, called = load_script("build_manifest"), []
    monkeypatch.setattr(script, "build_manifest", lambda *args: called.append(args))
    monkeypatch.setattr(script, "write_manifest", lambda *args: None)
    data = settings_file({}, tmp_path)
    arguments = ["--data", data, "--config-digest", "d", "--tokenizer", "tok", "--phase-sizes", "128"]
    arguments += [ARGUMENTS_FILE, settings_file(listed, tmp_path), "--out", "m.json"]
    monkeypatch.setattr(sys, "argv", ["build_manifest.py", *arguments])
    script.main()
    [(found, tokenizer, data, digest, out, packings)] = called
    assert found == [tuple(s + suffix for suffix in list(kinds.values())[:5]) for s in shards]
    assert packings == {128: [(s + ".128", s + ".128.json") for s in shards]}
    assert (tokenizer, data, digest, out) == ("tok", {}, "d", "m.json")
