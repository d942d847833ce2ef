"""The layout shows the architecture: scripts/ is the rule list (one thin command line per rule, named as it, plus
the launchers), and the code they run is the snakebert package, where nothing is a command line."""

import ast
import re

from helpers import REPO

LAUNCHERS = {"gaudi_spawn", "torch_spawn"}


def rule_names() -> set[str]:
    """Every rule, those defined under a condition (rules/tokenizer.smk) included."""
    names = {
        name
        for path in (REPO / "rules").glob("*.smk")
        for name in re.findall(r"^\s*rule (\w+):", path.read_text(), re.M)
    }
    return names | set(re.findall(r"^rule (\w+):", (REPO / "Snakefile").read_text(), re.M))


def test_scripts_are_the_rules_that_run_a_script_and_the_launcher():
    scripts = {path.stem for path in (REPO / "scripts").glob("*.py")}
    assert scripts == rule_names() - {"all"} | LAUNCHERS


def test_each_rule_script_is_a_main_that_calls_the_package():
    for path in (REPO / "scripts").glob("*.py"):
        if path.stem in LAUNCHERS:
            continue
        tree = ast.parse(path.read_text())
        functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
        assert functions == {"main"}, path.name
        project = {
            node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.level == 0
        }
        assert "snakebert" in project, path.name


def test_no_package_module_is_a_command_line():
    for path in (REPO / "snakebert").rglob("*.py"):
        text = path.read_text()
        assert "__main__" not in text and "argparse" not in text, path
