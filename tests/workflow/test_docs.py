"""Docs that cannot drift: the committed rule graph is the workflow's, and every repository path the README and
docs/ name exists."""

import html
import re
import subprocess
import sys

from helpers import REPO, snakemake_env

DOCS = [REPO / "README.md", REPO / "config/README.md", *sorted((REPO / "docs").glob("*.md"))]
TOP_FOLDERS = ("snakebert", "scripts", "rules", "tests", "config", "profiles", "bench", "docs", "envs", ".ci")


def dot_edges(text: str) -> set[tuple[str, str]]:
    names = dict(re.findall(r'^\s*(\d+)\[label = "(\w+)"', text, re.M))
    return {(names[a], names[b]) for a, b in re.findall(r"^\s*(\d+) -> (\d+)", text, re.M)}


def svg_edges(svg: str) -> set[tuple[str, str]]:
    names = dict(
        re.findall(r'<g id="node\d+" class="node">\s*<title>(\d+)</title>.*?<text[^>]*>(\w+)</text>', svg, re.S)
    )
    edges = re.findall(r'class="edge">\s*<title>(\d+)&#45;&gt;(\d+)</title>', svg)
    return {(names[a], names[b]) for a, b in edges}


def test_the_committed_rule_graph_is_the_workflows(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--rulegraph"],
        cwd=tmp_path, env=snakemake_env(), capture_output=True, text=True, check=True,
    )  # fmt: skip
    workflow = dot_edges(done.stdout)
    assert len(workflow) > 40 and ("train_tokenizer", "build_manifest") in workflow
    committed = svg_edges((REPO / "docs/rulegraph.svg").read_text())
    assert committed == workflow, (
        f"docs/rulegraph.svg differs from the workflow (regenerate it: snakemake --rulegraph | dot -Tsvg > "
        f"docs/rulegraph.svg); missing {sorted(workflow - committed)}, extra {sorted(committed - workflow)}"
    )


def named_paths(text: str) -> set[str]:
    """Repository paths in backticks or links: a top folder of the repository, then a path without placeholders."""
    found = re.findall(r"[`(](\.?[\w.-]+/[\w./-]*[\w-])[`)#]", html.unescape(text))
    return {path.removeprefix("../") for path in found if path.removeprefix("../").startswith(TOP_FOLDERS)}


def test_every_path_the_docs_name_exists():
    named = {doc: named_paths(doc.read_text()) for doc in DOCS if doc.exists()}
    assert sum(len(paths) for paths in named.values()) > 50  # the README alone names dozens
    missing = {
        f"{doc.relative_to(REPO)}: {path}"
        for doc, paths in named.items()
        for path in paths
        if not (REPO / path).exists()
    }
    assert not missing, sorted(missing)
