"""The workflow's parse path stays light: every dry run and every cluster job parses the workflow, so the package
modules the Snakefile and the rule files import pull in none of torch, transformers or datasets."""

import re
import subprocess
import sys

from helpers import REPO

HEAVY = ("torch", "transformers", "datasets")
IMPORT = re.compile(r"^(?:from snakebert\S* import .+|import snakebert\S*)$", re.MULTILINE)


def parse_path_imports() -> list[str]:
    """The package import statements of the Snakefile and every rule file, as written there."""
    files = [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))]
    return [statement for path in files for statement in IMPORT.findall(path.read_text())]


def test_the_workflow_parse_imports_no_torch_transformers_or_datasets():
    statements = parse_path_imports()
    assert len(statements) >= 10, statements  # the rule files' imports were found
    check = "import sys\n" + "\n".join(statements) + f"\nprint(sorted(set({HEAVY!r}) & set(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", check], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
