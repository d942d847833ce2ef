"""A digest of a script and the project modules it imports, so that editing the code reruns what it made."""

import ast
import functools
import hashlib
from pathlib import Path


def _module_file(root: Path, name: str) -> Path | None:
    """The file of module `name` (dotted) under `root`: a module file or a package's __init__.py."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache  # a module file's existence, not its content: an edited file is digested anew
def _with_packages(root: Path, name: str) -> frozenset[Path]:
    """Module `name` and the __init__.py of every package above it (importing it runs them all)."""
    parts = name.split(".")
    files = {_module_file(root, ".".join(parts[:end])) for end in range(1, len(parts) + 1)}
    return frozenset(path for path in files if path)


def _package_of(root: Path, path: Path) -> tuple[str, ...]:
    """The dotted package a module file under `root` belongs to (what a relative import starts from)."""
    return path.relative_to(root).with_suffix("").parts[:-1]  # a/b/c.py and a/b/__init__.py: a.b


@functools.cache
def _imported_modules(source: str, filename: str, package: tuple[str, ...]) -> frozenset[str]:
    """The dotted names a module's `source` imports, `package` the one its relative imports start from. Cached on the
    source itself: a workflow's parse digests about 20 scripts whose imports share most modules, and an edited file
    is parsed anew."""
    names = set()
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ((node.module,) if node.module else ()))
            else:
                module = node.module
            if module:
                names.add(module)
                names.update(f"{module}.{alias.name}" for alias in node.names)
    return frozenset(names)


def local_imports(path: Path, root: Path) -> set[Path]:
    """The project files under `root` that `path` imports: absolute imports (`import a.b`, `from a.b import c`,
    where c may be a module) and relative ones (`from . import c`, `from ..a import c`)."""
    names = _imported_modules(path.read_text(), str(path), _package_of(root, path))
    return {found for name in names for found in _with_packages(root, name)} - {path}


def code_digest(script: Path, root: Path) -> str:
    """SHA-256 over `script` and, transitively, every module under `root` it imports (paths and bytes, sorted)."""
    seen, pending = set(), {script}
    while pending:
        path = pending.pop()
        seen.add(path)
        pending |= local_imports(path, root) - seen
    digest = hashlib.sha256()
    for path in sorted(seen):
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()
