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


README_LINES = 130  # a newcomer's two minutes: what it is, the commands, what you get, where to read more
# Decimal numbers the docs write that are not measurements, each with why: everything else must be in
# bench/RESULTS.md, where its command and commit are.
NOT_FIGURES = {
    ("docs/evaluation.md", "0.0625"): "arithmetic: a sign test's p at 5 of 5 groups",
    ("docs/input-policies.md", "60.0"): "a config value, as JSON tools write a whole number",
    ("config/README.md", "60.0"): "a config value, as JSON tools write a whole number",
    ("config/README.md", "0.65"): "a config default: clean.language_threshold, FineWeb's",
    ("docs/long-runs.md", "22.05"): "a SLURM version",
    ("docs/long-runs.md", "23.02"): "a SLURM version",
    ("docs/long-runs.md", "4.1"): "an Open MPI version",
    ("docs/recipe.md", "2.8"): "NVIDIA's published figure, cited as theirs",
    ("docs/pretraining.md", "1.21"): "an Intel Gaudi software version",
    ("docs/pretraining.md", "5.5"): "arithmetic: 11 GB of blocks at 2 bytes a token",
    ("docs/pretraining.md", "5.9588"): "an example of the log's lines",
    ("docs/pretraining.md", "5.9590"): "an example of the log's lines",
    ("docs/pretraining.md", "189.2"): "an example of the log's lines",
}


def decimals(text: str) -> set[str]:
    """The decimal numbers of a text, versions of three parts (1.18.0) and numbers inside names and links left out."""
    return set(re.findall(r"(?<![\w.#/-])\d+\.\d+(?![\w.]*\d)(?![\w/-])", text))


def test_the_readme_is_short_and_every_figure_the_docs_quote_is_measured_in_bench():
    assert len((REPO / "README.md").read_text().splitlines()) <= README_LINES
    results = set(re.findall(r"\d+\.\d+", (REPO / "bench/RESULTS.md").read_text()))
    quoted = {(str(doc.relative_to(REPO)), number) for doc in DOCS for number in decimals(doc.read_text())}
    assert len(quoted) > 100 and ("docs/default-run.md", "4.146") in quoted  # the figures are found
    unmeasured = sorted(pair for pair in quoted - set(NOT_FIGURES) if pair[1] not in results)
    assert not unmeasured, f"figures the docs quote that bench/RESULTS.md does not hold: {unmeasured}"
    stale = sorted(set(NOT_FIGURES) - quoted)
    assert not stale, f"NOT_FIGURES names numbers the docs no longer write: {stale}"


def package_bullets() -> dict[str, str]:
    """docs/development.md's bullets on the package, by the folder each names (`` for the top level)."""
    text = (REPO / "docs/development.md").read_text()
    package = text[text.index("The package, `snakebert/`") : text.index("The tests, `tests/`")]
    bullets = re.split(r"^- ", package, flags=re.M)[1:]
    return {(re.match(r"\*\*`?(\w*)/?`?\*\*", bullet)[1] if "Top level" not in bullet[:20] else ""): bullet
            for bullet in bullets}  # fmt: skip


def test_the_development_guide_names_every_module():
    bullets = package_bullets()
    package = REPO / "snakebert"
    folders = {"", *(path.name for path in package.iterdir() if (path / "__init__.py").exists())}
    assert set(bullets) == folders, f"folders without a bullet, or bullets without a folder: {set(bullets) ^ folders}"
    for folder, bullet in bullets.items():
        modules = {path.name for path in (package / folder).glob("*.py") if path.name != "__init__.py"}
        named = set(re.findall(r"`(\w+\.py)`", bullet))
        assert modules <= named, f"snakebert/{folder}: docs/development.md does not name {sorted(modules - named)}"
        assert named <= modules, f"snakebert/{folder}: docs/development.md names {sorted(named - modules)}, not there"
