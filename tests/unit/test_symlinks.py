"""The symlink policy of `files` sources: a symlink is read when its target lies inside the folder the glob starts
from or inside the working directory; any other is refused, naming the link and its target, unless the source sets
follow_symlinks; a fine-tuning task's files alike."""

import pytest

from snakebert.data.shards import files_at_open, glob_base, source_files
from snakebert.errors import DataError
from snakebert.finetune.tasks import read_task


def files_source(*paths: str, **settings) -> dict:
    return {"name": "s", "type": "files", "paths": list(paths), "format": "text", **settings}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """work/ (the working directory) with corpus/ and shared/, and outside/ beside it."""
    work = tmp_path / "work"
    for folder in (work / "corpus/deep", work / "shared", tmp_path / "outside"):
        folder.mkdir(parents=True)
    (work / "corpus/deep/real.txt").write_text("inside the glob's folder")
    (work / "shared/common.txt").write_text("inside the working directory")
    (tmp_path / "outside/secret.txt").write_text("outside both")
    monkeypatch.chdir(work)
    return tmp_path


def test_links_inside_the_glob_folder_or_the_working_directory_are_read(tree):
    (tree / "work/corpus/a.txt").symlink_to(tree / "work/corpus/deep/real.txt")
    (tree / "work/corpus/b.txt").symlink_to("../shared/common.txt")
    assert source_files(files_source("corpus/*.txt")) == ["corpus/a.txt", "corpus/b.txt"]


def test_a_link_to_anywhere_else_is_refused_naming_link_and_target(tree):
    (tree / "work/corpus/a.txt").symlink_to(tree / "outside/secret.txt")
    with pytest.raises(DataError, match=f"source 's': corpus/a.txt is a symlink to {tree}/outside/secret.txt, "
                       "outside corpus and the working directory; set follow_symlinks: true"):  # fmt: skip
        source_files(files_source("corpus/*.txt"))
    (tree / "work/corpus/a.txt").unlink()
    (tree / "work/corpus/a.txt").symlink_to("/etc/passwd")
    refusal = "corpus/a.txt is a symlink to /etc/passwd, outside corpus and the working directory"
    with pytest.raises(DataError, match=refusal):
        source_files(files_source("corpus/*.txt"))


def test_a_linked_folder_on_the_way_counts_too(tree):
    (tree / "work/corpus/elsewhere").symlink_to(tree / "outside")
    with pytest.raises(DataError, match="corpus/elsewhere/secret.txt is a symlink to .*outside/secret.txt"):
        source_files(files_source("corpus/**/*.txt"))


def test_follow_symlinks_reads_every_link(tree):
    (tree / "work/corpus/a.txt").symlink_to(tree / "outside/secret.txt")
    assert source_files(files_source("corpus/*.txt", follow_symlinks=True)) == ["corpus/a.txt"]


def test_a_glob_starting_at_a_linked_folder_reads_inside_it(tree):
    (tree / "work/data").symlink_to(tree / "outside")  # the corpus lives on another disk, linked in
    assert source_files(files_source("data/*.txt")) == ["data/secret.txt"]


@pytest.mark.parametrize(
    ("pattern", "base"),
    [("corpus/*.txt", "corpus"), ("corpus/**/x.jsonl", "corpus"), ("/data/c4/*.gz", "/data/c4"), ("*.txt", "."),
     ("a/b/c.txt", "a/b"), ("corpus/[ab]/*.txt", "corpus")],
)  # fmt: skip
def test_the_glob_base_is_its_leading_parts_without_wildcards(pattern, base):
    assert glob_base(pattern) == base


def test_a_link_swapped_in_after_planning_is_refused_when_the_job_opens_it(tree):
    source = files_source("corpus/*.txt")
    (tree / "work/corpus/a.txt").write_text("a real file when the workflow is parsed")
    planned = source_files(source)
    (tree / "work/corpus/a.txt").unlink()
    (tree / "work/corpus/a.txt").symlink_to("/etc/passwd")
    with pytest.raises(DataError, match="corpus/a.txt is a symlink to /etc/passwd, outside corpus and the working"):
        list(files_at_open(source, planned))
    assert list(files_at_open({**source, "follow_symlinks": True}, planned)) == planned


@pytest.mark.parametrize("folder", ["results/raw/s", "logs", "checkpoints/pretrain", ".snakemake/x"])
def test_a_glob_that_reaches_the_workflow_outputs_is_refused_naming_pattern_and_file(tree, folder):
    (tree / "work" / folder).mkdir(parents=True)
    (tree / "work" / folder / "out.txt").write_text("written by the workflow")
    top = folder.split("/")[0]
    pattern = f"{top}/**/*.txt" if top.startswith(".") else "**/*.txt"
    with pytest.raises(DataError) as refused:
        source_files(files_source(pattern))
    assert f"{folder}/out.txt (matched by {pattern!r}) is in the workflow's own {top}/" in str(refused.value)


def test_a_task_file_linked_out_of_the_working_directory_is_refused_and_nothing_of_it_is_quoted(tree):
    """The same policy for a fine-tuning task's files, checked as each is opened: a link to /etc/passwd is named,
    its lines never read into a message; follow_symlinks reads a link the user means."""
    (tree / "work/pairs.csv").symlink_to("/etc/passwd")
    task = {"name": "pairs", "type": "files", "format": "csv", "train": "pairs.csv", "validation": None, "test": None,
            "text_column": "first", "text_pair_column": None, "label_column": "label", "group_column": None,
            "problem": None, "metrics": None, "follow_symlinks": False}  # fmt: skip
    with pytest.raises(DataError) as refused:
        read_task(task)
    assert str(refused.value) == (
        "finetune task 'pairs': pairs.csv is a symlink to /etc/passwd, outside the working directory; set "
        "follow_symlinks: true on the finetune task to read it"
    )
    (tree / "outside/pairs.csv").write_text("first,label\nsome words,yes\nother words,no\n")
    (tree / "work/pairs.csv").unlink()
    (tree / "work/pairs.csv").symlink_to(tree / "outside/pairs.csv")
    assert read_task({**task, "follow_symlinks": True}).splits["train"].num_rows == 2
