"""A digest of a script and the project modules it imports, so that editing the code reruns what it made."""

import ast
import hashlib
from pathlib import Path


def local_imports(path: Path) -> set[Path]:
    """The modules beside `path` that it imports by absolute name (the scripts import each other flatly)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return {path.parent / f"{name}.py" for name in names if (path.parent / f"{name}.py").is_file()}


def code_digest(script: Path) -> str:
    """SHA-256 over `script` and, transitively, every project module it imports (names and bytes, sorted)."""
    seen, pending = set(), {script}
    while pending:
        path = pending.pop()
        seen.add(path)
        pending |= local_imports(path) - seen
    digest = hashlib.sha256()
    for path in sorted(seen):
        digest.update(f"{path.name}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()
