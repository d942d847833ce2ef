"""The code digest that reruns edited code (snakebert/code_digest.py): it follows a script's imports of the project,
transitively, relative ones included, and is kept across parses only while nothing it depends on has changed."""

import json
import os

import pytest

from snakebert import code_digest as module
from snakebert.code_digest import CodeDigests, local_imports


@pytest.fixture
def project(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "base.py").write_text("VALUE = 1\n")
    (package / "sub" / "middle.py").write_text("from ..base import VALUE\nimport json\n")
    (package / "sub" / "other.py").write_text("from . import middle\nfrom pkg import extra\n")
    (tmp_path / "job_a.py").write_text("from pkg.sub.other import middle\n")
    (tmp_path / "job_b.py").write_text("from os import path\nimport pkg.sub\n")
    return tmp_path


def parse(project):
    """The digests of both scripts as a new parse of the workflow makes them, from the store earlier parses left (a
    parse is a new process: no module lookup of an earlier one is remembered)."""
    module._with_packages.cache_clear()
    digests = CodeDigests(project / ".snakemake/code-digests.json", project)
    return {name: digests.digest(project / name) for name in ("job_a.py", "job_b.py")}


def touch_later(path, text):
    """Write `path`, its modification time a second on (an edit a parse a moment later must see)."""
    path.write_text(text)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_code_digest_follows_imports_transitively_and_changes_only_for_importers(project):
    package = project / "pkg"
    assert local_imports(package / "sub" / "middle.py", project) == {package / "__init__.py", package / "base.py"}
    assert package / "sub" / "middle.py" in local_imports(package / "sub" / "other.py", project)  # `from . import`
    before = parse(project)
    touch_later(package / "base.py", "VALUE = 2\n")
    after = parse(project)
    assert after["job_a.py"] != before["job_a.py"]  # three imports away, two of them relative
    assert after["job_b.py"] == before["job_b.py"]
    touch_later(package / "sub" / "__init__.py", "# a package's __init__ runs on import\n")
    assert parse(project)["job_b.py"] != after["job_b.py"]


def test_a_parse_with_nothing_changed_reads_no_code_and_a_new_module_or_a_bad_store_is_seen(project, monkeypatch):
    first = parse(project)
    assert parse(project) == first  # the first parse's store folder was new in the project's folder: stamped anew
    read = []
    monkeypatch.setattr(module, "_imported_modules", lambda *args: read.append(args) or frozenset())
    monkeypatch.setattr(module, "_digest", lambda *args: read.append(args) or "recomputed")
    assert parse(project) == first and read == []  # the store answered: no file read, no import parsed
    monkeypatch.undo()
    (project / "pkg" / "extra.py").write_text("import pkg.base\n")  # `from pkg import extra` now finds a module
    os.utime(project / "pkg", ns=(0, (project / "pkg").stat().st_mtime_ns + 1_000_000_000))
    added = parse(project)
    assert added["job_a.py"] != first["job_a.py"] and added["job_b.py"] == first["job_b.py"]
    store = project / ".snakemake/code-digests.json"
    assert set(json.loads(store.read_text())) == {(project / name).as_posix() for name in ("job_a.py", "job_b.py")}
    store.write_text("{not json")
    assert parse(project) == added  # a store that cannot be read is made anew
    assert json.loads(store.read_text())
