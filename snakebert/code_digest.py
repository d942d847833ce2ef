"""A digest of a script and the project modules it imports, so that editing the code reruns what it made; kept
across workflow parses (every dry run and every SLURM job parses the workflow) in a store that is trusted only while
nothing the digest depends on has changed."""

import ast
import functools
import hashlib
import json
from pathlib import Path

from .files.atomic import replace_text


def _candidates(root: Path, name: str) -> tuple[Path, Path]:
    """Where module `name` (dotted) would be under `root`: a module file, or a package's __init__.py."""
    base = root.joinpath(*name.split("."))
    return base.with_suffix(".py"), base / "__init__.py"


def _module_file(root: Path, name: str) -> Path | None:
    return next((candidate for candidate in _candidates(root, name) if candidate.is_file()), None)


@functools.cache  # a module file's existence, not its content: an edited file is digested anew
def _with_packages(root: Path, name: str) -> frozenset[Path]:
    """Module `name` and the __init__.py of every package above it (importing it runs them all)."""
    parts = name.split(".")
    files = {_module_file(root, ".".join(parts[:end])) for end in range(1, len(parts) + 1)}
    return frozenset(path for path in files if path)


def _looked_in(root: Path, name: str) -> set[Path]:
    """The folders whose listing decides what `name` and the packages above it resolve to (a module added to one
    changes its modification time)."""
    parts = name.split(".")
    prefixes = (".".join(parts[:end]) for end in range(1, len(parts) + 1))
    folders = {candidate.parent for prefix in prefixes for candidate in _candidates(root, prefix)}
    return {folder for folder in folders if folder.is_dir()}


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


def _imports(path: Path, root: Path) -> frozenset[str]:
    return _imported_modules(path.read_text(), str(path), _package_of(root, path))


def local_imports(path: Path, root: Path) -> set[Path]:
    """The project files under `root` that `path` imports: absolute imports (`import a.b`, `from a.b import c`,
    where c may be a module) and relative ones (`from . import c`, `from ..a import c`)."""
    return {found for name in _imports(path, root) for found in _with_packages(root, name)} - {path}


def _closure(script: Path, root: Path) -> set[Path]:
    """`script` and every module under `root` it imports, transitively."""
    seen, pending = set(), {script}
    while pending:
        path = pending.pop()
        seen.add(path)
        pending |= local_imports(path, root) - seen
    return seen


def _digest(files: set[Path], root: Path) -> str:
    """SHA-256 over `files` under `root`: their paths and bytes, sorted."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _stamp(path: Path) -> list[int] | None:
    """What says that a file or folder changed: its modification time and size (as make and Snakemake judge files);
    None for one that is gone."""
    try:
        status = path.stat()
    except OSError:
        return None
    return [status.st_mtime_ns, status.st_size]


class CodeDigests:
    """Each script's digest: SHA-256 over it and, transitively, every module under `root` it imports (paths and
    bytes), kept in the JSON file `store` across workflow parses. A script's stored digest is used while
    every file it read and every folder its imports were looked up in has the stamp it had when the digest was made;
    otherwise the digest is made anew, and stored (by a rename: parses that run at once each write a whole file)."""

    def __init__(self, store: Path, root: Path) -> None:
        self.store, self.root = store, root
        try:
            self.known = json.loads(store.read_text())
        except (OSError, ValueError):
            self.known = {}
        self.stamps: dict[str, list[int] | None] = {}  # this parse's, each path stamped once

    def _stamp(self, relative: str) -> list[int] | None:
        if relative not in self.stamps:
            self.stamps[relative] = _stamp(self.root / relative)
        return self.stamps[relative]

    def digest(self, script: Path) -> str:
        key = script.as_posix()  # the workflow's own path: another checkout's scripts are other entries
        entry = self.known.get(key)
        if entry and all(self._stamp(path) == stamp for path, stamp in entry["stamps"].items()):
            return entry["digest"]
        files = _closure(script, self.root)
        names = {name for path in files for name in _imports(path, self.root)}
        folders = {folder for name in names for folder in _looked_in(self.root, name)} | {self.root}
        before = {path.relative_to(self.root).as_posix(): _stamp(path) for path in sorted(files | folders)}
        digest = _digest(files, self.root)
        unchanged = _closure(script, self.root) == files and all(
            _stamp(self.root / path) == stamp for path, stamp in before.items()
        )
        if unchanged:  # nothing was edited while the digest was made
            self.known[key] = {"digest": digest, "stamps": before}
            replace_text(self.store, json.dumps(self.known, sort_keys=True))
        return digest
