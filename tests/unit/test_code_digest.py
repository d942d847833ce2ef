"""The code digest that reruns edited code (snakebert/code_digest.py): it follows a script's imports of the project,
transitively, relative ones included."""

from snakebert.code_digest import code_digest, local_imports


def test_code_digest_follows_imports_transitively_and_changes_only_for_importers(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "base.py").write_text("VALUE = 1\n")
    (package / "sub" / "middle.py").write_text("from ..base import VALUE\nimport json\n")
    (package / "sub" / "other.py").write_text("from . import middle\n")
    (tmp_path / "job_a.py").write_text("from pkg.sub.other import middle\n")
    (tmp_path / "job_b.py").write_text("from os import path\nimport pkg.sub\n")
    assert local_imports(package / "sub" / "middle.py", tmp_path) == {package / "__init__.py", package / "base.py"}
    assert package / "sub" / "middle.py" in local_imports(package / "sub" / "other.py", tmp_path)  # `from . import`
    before = {name: code_digest(tmp_path / name, tmp_path) for name in ("job_a.py", "job_b.py")}
    (package / "base.py").write_text("VALUE = 2\n")
    after = {name: code_digest(tmp_path / name, tmp_path) for name in ("job_a.py", "job_b.py")}
    assert after["job_a.py"] != before["job_a.py"]  # three imports away, two of them relative
    assert after["job_b.py"] == before["job_b.py"]
    (package / "sub" / "__init__.py").write_text("# a package's __init__ runs on import\n")
    assert code_digest(tmp_path / "job_b.py", tmp_path) != after["job_b.py"]
