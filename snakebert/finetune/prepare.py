"""Prepare a task's data: read it (TASK_TYPES), carve the splits it lacks, check them, and write each split as an
Arrow file (`text`, `text_pair` for pairs, `label`: a class id or a number, `group`) beside `task.json`, which
describes the task, its classes and each split's counts and checksum. What every fine-tuning run reads."""

from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from ..files.arrow_streams import read_table, stream_writer
from ..files.atomic import atomic_path
from ..files.checksum import sha256
from .examples import GROUP, LABEL, PAIR, TEXT
from .plan import fold_folder
from .problems import PROBLEMS, Problem
from .splits import carve, check_task_splits, fold_numbers
from .task_file import TASK_FILE, TaskFile, read_task_file, write_task_file
from .tasks import SPLITS, read_task


def _empty_texts(table: pa.Table) -> int:
    """Examples with no word in their text (or in their second text): kept, counted and reported (a sentence of
    tagged words has words: tagged_examples.py refuses an empty one)."""
    if pa.types.is_list(table.column(TEXT).type):
        return 0
    empty = pc.equal(pc.utf8_trim_whitespace(table.column(TEXT)), "")
    if PAIR in table.column_names:
        empty = pc.or_(empty, pc.equal(pc.utf8_trim_whitespace(table.column(PAIR)), ""))
    return int(pc.sum(empty).as_py() or 0)


def _in_train(splits: dict[str, pa.Table]) -> dict[str, int]:
    """Per split other than train, its examples whose text (and second text) train also holds."""

    def keys(table: pa.Table) -> pa.ChunkedArray:
        if pa.types.is_list(table.column(TEXT).type):  # a sentence of words
            return pc.binary_join(table.column(TEXT), "\x00")
        if PAIR not in table.column_names:
            return table.column(TEXT)
        return pc.binary_join_element_wise(table.column(TEXT), table.column(PAIR), "\x00")

    trained = pc.unique(keys(splits["train"]))
    return {split: int(pc.sum(pc.is_in(keys(table), value_set=trained)).as_py() or 0)
            for split, table in splits.items() if split != "train"}  # fmt: skip


def _counts(table: pa.Table, problem: Problem, names: list[str] | None) -> dict:
    counts = {"examples": len(table), "groups": len(pc.unique(table.column(GROUP))), "empty_texts": _empty_texts(table)}
    return {**counts, **problem.counted(table.column(LABEL).to_numpy(), names)}


def _write(table: pa.Table, path: Path) -> None:
    with stream_writer(path, table.schema) as writer:
        writer.write_table(table)


def _description(
    task: dict, source, splits: dict[str, pa.Table], names: list[str] | None, carved: list[str]
) -> TaskFile:
    return TaskFile(
        task=task["name"],
        type=task["type"],
        description=source.description,
        problem=source.problem,
        labels=None if names is None else tuple(names),
        metrics=tuple(source.metrics),
        main_metric=source.metrics[0],
        text_pair=PAIR in splits["train"].column_names,
        tag_scheme=source.tag_scheme,
        allow_unanswerable=source.allow_unanswerable,
        reported_split="test" if "test" in splits else "validation",
        carved=tuple(sorted(carved)),
        folds=task["split"]["folds"],
        fold=None,
        splits={},
    )


def _write_splits(
    folder: Path, splits: dict[str, pa.Table], names: list[str] | None, description: TaskFile
) -> TaskFile:
    """Each split's Arrow file and task.json, its counts and checksums, in `folder`; return the description."""
    folder.mkdir()
    overlap, problem, counted = _in_train(splits), PROBLEMS[description.problem], {}
    for split, table in splits.items():
        encoded = problem.encoded(table, names)
        _write(encoded, folder / f"{split}.arrow")
        counts = {**_counts(encoded, problem, names), **({"also_in_train": overlap[split]} if split in overlap else {})}
        counted[split] = {**counts, "sha256": sha256(folder / f"{split}.arrow")}
    description = replace(description, splits=counted)
    write_task_file(folder, description)
    return description


def _folded(task: dict, splits: dict, stratified: bool) -> list[dict[str, pa.Table]]:
    """Each fold's splits: the fold's groups of train as test, validation (the task's own, or carved out of the other
    folds) and the rest as train."""
    train, validation, seed = splits["train"], splits["validation"], task["split"]["seed"]
    fold_of_row = fold_numbers(task["name"], train, task["split"]["folds"], seed, stratified)
    folded = []
    for fold in range(task["split"]["folds"]):
        rest = train.filter(pa.array(fold_of_row != fold))
        given = validation is not None
        carved = carve(rest, {} if given else {"validation": task["split"]["validation_fraction"]}, seed, stratified)
        folded.append({"train": carved["train"], "validation": validation if given else carved["validation"],
                       "test": train.filter(pa.array(fold_of_row == fold))})  # fmt: skip
    return folded


def notices(task: dict, description: TaskFile) -> list[str]:
    """What the log says of a task's data that is allowed but worth knowing: a file given as two splits, examples
    with no text, examples of a held-out split that train also holds."""
    where = f"finetune task {task['name']!r}"
    found = []
    given = {split: task.get(split) for split in SPLITS if task.get(split)}
    for split, path in given.items():
        if split != "train" and Path(path).exists() and Path(path).samefile(given["train"]):
            found.append(f"{where}: train and {split} are the same file ({path}): the {split} split measures memory")
    for split, counts in description.splits.items():
        if counts.get("empty_texts"):
            found.append(f"{where}: {counts['empty_texts']} examples of the {split} split have no text (kept)")
        if counts.get("also_in_train"):
            found.append(
                f"{where}: {counts['also_in_train']} examples of the {split} split are also in train, text for text"
            )
    return found


def prepare_task(task: dict, out: str) -> TaskFile:
    """Write the task's splits and task.json into the folder `out` (with `split.folds`, each fold's in a folder of its
    own, and a task.json of the folds' test splits pooled); return the task description (its TaskFile). What
    is allowed but worth knowing is counted in task.json (`empty_texts`, `also_in_train`) and said in the log
    (notices)."""
    source = read_task(task)
    splits = dict(source.splits)
    problem = PROBLEMS[source.problem]
    names = problem.label_names(splits["train"], source.label_names)
    if "f1" in source.metrics and (names is None or len(names) != 2):
        raise DataError(f"finetune task {task['name']!r}: metric f1 needs two classes (use macro_f1)")
    if task["split"]["folds"]:
        if splits["test"] is not None:
            raise DataError(
                f"finetune task {task['name']!r}: split.folds cannot be used beside the task's own test split"
            )
        return _prepare_folds(task, source, splits, names, out)
    wanted = {"test": task["split"]["test_fraction"], "validation": task["split"]["validation_fraction"]}
    fractions = {split: share for split, share in wanted.items() if splits[split] is None and share > 0}
    splits.update(carve(splits["train"], fractions, task["split"]["seed"], problem.stratified))
    splits = {split: splits[split] for split in SPLITS if splits[split] is not None}
    check_task_splits(task["name"], splits, names)
    with atomic_path(out) as tmp:
        description = _write_splits(tmp, splits, names, _description(task, source, splits, names, list(fractions)))
    for notice in notices(task, description):
        print(notice, flush=True)
    return description


def _prepare_folds(task: dict, source, splits: dict, names: list[str] | None, out: str) -> TaskFile:
    problem = PROBLEMS[source.problem]
    folded = _folded(task, splits, problem.stratified)
    carved = ["test"] + (["validation"] if splits["validation"] is None else [])
    for fold, found in enumerate(folded, 1):
        check_task_splits(task["name"], found, names, fold)
    with atomic_path(out) as tmp:
        tmp.mkdir()
        described = _description(task, source, folded[0], names, carved)
        for fold, found in enumerate(folded, 1):
            _write_splits(tmp / fold_folder(fold), found, names, replace(described, fold=fold))
        pooled = pa.concat_tables([problem.encoded(found["test"], names) for found in folded])
        description = replace(described, splits={"test": _counts(pooled, problem, names)})
        write_task_file(tmp, description)
    return description


def read_split(folder: str, split: str) -> pa.Table:
    """One split prepare_task wrote."""
    return read_table(str(Path(folder) / f"{split}.arrow"))


def read_task_dir(folder: str) -> tuple[TaskFile, dict[str, pa.Table]]:
    """What prepare_task wrote: the task description (as task.json holds it, refused where it is not of this
    workflow) and its splits."""
    task = read_task_file(Path(folder) / TASK_FILE)
    return task, {split: read_split(folder, split) for split in task.splits}
