"""The fine-tuning tasks' data: the readers (files, the embedded party task, a GLUE-like local folder through
`datasets`), the splits carved by group, and every bad input named before a run starts."""

import json
import re

import numpy as np
import pyarrow as pa
import pytest
from finetune_data import (
    number_rows,
    pair_rows,
    write_conll2003_folder,
    write_csv,
    write_glue_folder,
    write_squad_folder,
)
from helpers import write_jsonl

from snakebert.data.sources import plan_source, read_documents
from snakebert.errors import DataError
from snakebert.finetune.embedded import passages
from snakebert.finetune.examples import without_cells
from snakebert.finetune.prepare import prepare_task, read_task_dir
from snakebert.finetune.splits import by_stratum, carve, fold_numbers
from snakebert.report.downstream import balance


def files_task(tmp_path, **overrides) -> dict:
    write_csv(tmp_path / "pairs.csv", pair_rows(40))
    task = {"name": "pairs", "type": "files", "format": "csv", "train": str(tmp_path / "pairs.csv"),
            "validation": None, "test": None, "text_column": "first", "text_pair_column": "second",
            "label_column": "label", "group_column": None, "problem": None, "metrics": None,
            "split": {"validation_fraction": 0.25, "test_fraction": 0.25, "seed": 0, "folds": None},
            "recipe": {}}  # fmt: skip
    return {**task, **overrides}


def embedded_task(**overrides) -> dict:
    task = {"name": "party", "type": "embedded", "task": "sotu-party", "passage_words": 100, "passages_per_speech": 8,
            "split": {"validation_fraction": 0.15, "test_fraction": 0.15, "seed": 0, "folds": None},
            "recipe": {}}  # fmt: skip
    return {**task, **overrides}


def test_the_party_task_splits_by_speech_and_states_its_balance(tmp_path):
    described = prepare_task(embedded_task(), str(tmp_path / "party"))
    _, splits = read_task_dir(str(tmp_path / "party"))
    speeches = {split: set(table.column("group").to_pylist()) for split, table in splits.items()}
    assert not speeches["train"] & speeches["validation"] and not speeches["train"] & speeches["test"]
    assert not speeches["validation"] & speeches["test"]
    assert sum(len(found) for found in speeches.values()) == 181
    assert described.labels == ("Democratic", "Republican")
    counts = {split: described.splits[split]["class_counts"] for split in splits}
    democratic_speeches = sum(counts[split]["Democratic"] for split in counts) / 8
    assert democratic_speeches == 78  # 8 passages from each of the 78 Democratic speeches (all are long enough)
    assert described.main_metric == "macro_f1" and described.reported_split == "test"


def test_the_same_task_and_seed_give_byte_identical_files_and_another_seed_another_split(tmp_path):
    first, second = (prepare_task(embedded_task(), str(tmp_path / name)) for name in ("a", "b"))
    assert first == second
    split = {"validation_fraction": 0.15, "test_fraction": 0.15, "seed": 1, "folds": None}
    other = prepare_task(embedded_task(split=split),
                         str(tmp_path / "c"))  # fmt: skip
    assert other.splits["test"]["sha256"] != first.splits["test"]["sha256"]


def test_passages_are_evenly_spaced_whole_runs_of_words():
    text = " ".join(f"w{index}" for index in range(1050))
    assert [len(found.split()) for found in passages(text, 100, None)] == [100] * 10
    kept = passages(text, 100, 4)
    assert [found.split()[0] for found in kept] == ["w100", "w300", "w600", "w800"]
    assert passages("only five words in here", 100, 8) == ["only five words in here"]


def test_carve_keeps_each_group_on_one_side_and_each_class_in_proportion():
    groups = [str(index // 3) for index in range(300)]
    labels = ["a" if index // 3 < 40 else "b" for index in range(300)]
    table = pa.table({"text": groups, "label": labels, "group": groups})
    found = carve(table, {"test": 0.2, "validation": 0.1}, seed=5, classes=True)
    sides = {split: set(part.column("group").to_pylist()) for split, part in found.items()}
    assert sum(len(part) for part in found.values()) == 300
    assert all(not sides[a] & sides[b] for a in sides for b in sides if a != b)
    assert [part.column("label").to_pylist().count("a") // 3 for part in found.values()] == [28, 8, 4]


def test_the_strata_are_cut_in_one_sort_into_the_per_stratum_draws():
    """by_stratum equals taking each stratum's groups out of the drawn order, stratum after stratum in sorted order
    (what the carving did with a pass per class), for class names and for one stratum of numbers."""
    rng = np.random.default_rng(3)
    for trial in range(100):
        count = int(rng.integers(0, 60))
        strata = rng.integers(0, 3, count) if trial % 2 else np.array([f"c{n}" for n in rng.integers(0, 9, count)])
        order = np.random.default_rng(trial).permutation(count)
        expected = [order[strata[order] == stratum] for stratum in sorted(set(strata.tolist()))]
        found = by_stratum(trial, strata)
        assert [part.tolist() for part in found] == [part.tolist() for part in expected]


def test_a_files_task_with_sentence_pairs_keeps_its_label_names(tmp_path):
    described = prepare_task(files_task(tmp_path), str(tmp_path / "out"))
    task, splits = read_task_dir(str(tmp_path / "out"))
    assert task.labels == ("different", "same") and task.text_pair
    assert splits["train"].column_names == ["text", "text_pair", "label", "group"]
    assert set(splits["test"].column("label").to_pylist()) <= {0, 1}
    assert described.carved == ("test", "validation")


def test_a_regression_task_from_jsonl_with_given_splits(tmp_path):
    rows = number_rows(30)
    paths = {split: str(write_jsonl(tmp_path / f"{split}.jsonl", rows)) for split in ("train", "validation", "test")}
    task = files_task(tmp_path, format="jsonl", text_column="text", text_pair_column=None, label_column="score",
                      problem="regression", **paths)  # fmt: skip
    described = prepare_task(task, str(tmp_path / "out"))
    assert described.labels is None and described.metrics == ("pearson", "spearman")
    assert described.carved == () and described.splits["test"]["label_mean"] == pytest.approx(
        np.mean([row["score"] for row in rows])
    )


def test_a_hub_task_reads_a_local_folder_laid_out_like_glue(tmp_path):
    folder = write_glue_folder(tmp_path / "glue")
    task = {**schema_task("hub"), "name": "mrpc", "preset": "glue/mrpc", "path": str(folder)}
    described = prepare_task(task, str(tmp_path / "out"))
    assert described.labels == ("not_equivalent", "equivalent")
    assert described.metrics == ("f1", "accuracy") and described.text_pair
    assert described.splits["test"]["examples"] == 24  # GLUE's validation split, reported as test
    assert described.carved == ("validation",)


def test_the_conll2003_preset_reads_a_local_folder_laid_out_like_the_hubs_copy(tmp_path):
    """Its tag names from the data set's features (a list of classes, as ids in the files), its own validation and
    test splits, seqeval's metrics; the embedded names task as the default run prepares it."""
    folder = write_conll2003_folder(tmp_path / "conll2003")
    task = {**schema_task("hub"), "name": "ner", "preset": "conll2003", "path": str(folder)}
    described = prepare_task(task, str(tmp_path / "out"))
    assert described.labels == ("O", "B-PER", "I-PER", "B-NAME", "I-NAME")  # as declared, not as found
    assert described.problem == "token_classification" and described.tag_scheme == "iob2"
    assert described.main_metric == "entity_f1" and described.carved == ()
    assert described.splits["test"]["examples"] == 24 and described.splits["test"]["tag_counts"]["B-PER"] == 0
    _, splits = read_task_dir(str(tmp_path / "out"))
    assert splits["train"].column("text")[0].as_py() == ["the", "committee", "met", "on"]
    assert splits["train"].column("label")[0].as_py() == [0, 3, 4, 0]  # O B-NAME I-NAME O, as ids of the labels
    names = {**schema_task("embedded"), "name": "names", "task": "sotu-names", "sentences_per_speech": 2}
    described = prepare_task(names, str(tmp_path / "names"))
    assert described.labels == ("O", "B-NAME", "I-NAME") and described.tag_scheme == "iob2"
    assert sum(split["groups"] for split in described.splits.values()) == 249  # every speech, none split


def test_the_squad_v2_preset_reads_a_local_folder_laid_out_like_the_hubs_copy(tmp_path):
    """SQuAD v2.0's questions with and without answers, its validation split reported as test (the Hub's test is
    hidden), validation carved out of train by article, SQuAD's metrics."""
    folder = write_squad_folder(tmp_path / "squad_v2")
    task = {**schema_task("hub"), "name": "squad", "preset": "squad_v2", "path": str(folder)}
    described = prepare_task(task, str(tmp_path / "out"))
    assert described.problem == "extractive_qa" and described.allow_unanswerable is True
    assert described.main_metric == "squad_f1" and described.carved == ("validation",)
    assert described.splits["test"]["questions"] == 30 and described.splits["test"]["unanswerable"] == 6
    _, splits = read_task_dir(str(tmp_path / "out"))
    assert splits["test"].column("label")[0].as_py() == [{"text": "committee", "start": 4}]
    articles = [set(table.column("group").to_pylist()) for table in (splits["train"], splits["validation"])]
    assert not articles[0] & articles[1] and len(articles[0] | articles[1]) == 12
    with pytest.raises(DataError, match="has no answer"):  # read as SQuAD v1.1, an unanswerable question is refused
        prepare_task({**task, "preset": "squad"}, str(tmp_path / "v1"))
    assert not (tmp_path / "v1").exists()


def schema_task(kind: str) -> dict:
    """A task entry of type `kind` with the schema's defaults (what the workflow's validation fills in)."""
    branch = next(
        rule["then"]["properties"]
        for rule in schema_defaults_tree()["properties"]["tasks"]["items"]["allOf"]
        if rule["if"]["properties"]["type"]["const"] == kind
    )
    found = {key: spec["default"] for key, spec in branch.items() if "default" in spec}
    return {**found, "type": kind, "split": {"validation_fraction": 0.25, "test_fraction": 0, "seed": 0, "folds": None}}


def schema_defaults_tree() -> dict:
    import yaml

    from snakebert.config_defaults import SCHEMA

    return yaml.safe_load(SCHEMA.read_text())["properties"]["finetune"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"text_column": "sentence"}, re.escape("no column 'sentence' (columns: first, second, label, doc)")),
        ({"label_column": "gold"}, "no column 'gold'"),
        ({"problem": "regression"}, "holds string, not numbers"),
    ],
)
def test_a_missing_column_or_a_label_of_the_wrong_kind_is_named_with_its_file(tmp_path, change, message):
    task = files_task(tmp_path, **change)
    with pytest.raises(DataError, match=message) as error:
        prepare_task(task, str(tmp_path / "out"))
    assert str(tmp_path / "pairs.csv") in str(error.value)
    assert not (tmp_path / "out").exists()


def every_row(**cells) -> list[dict]:
    """pair_rows with each of `cells` ({column: function of the row}) replaced in every row."""
    return [{**row, **{name: made(row) for name, made in cells.items()}} for row in pair_rows(40)]


def rows_with(row: int, **cells) -> list[dict]:
    rows = pair_rows(40)
    rows[row] = {**rows[row], **cells}
    return rows


@pytest.mark.parametrize(
    ("write", "change", "message"),
    [
        pytest.param(lambda path: write_csv(path, rows_with(7, doc="")), {"group_column": "doc"},
                     "column 'doc' has no group in line 9", id="group-cell-empty"),
        pytest.param(lambda path: write_csv(path, [{**row, "first": "two\nlines"} if index == 3 else row
                                                   for index, row in enumerate(rows_with(7, doc=""))]),
                     {"group_column": "doc"}, "column 'doc' has no group in line 10",
                     id="group-cell-empty-after-a-cell-of-two-lines"),
        pytest.param(lambda path: write_csv(path, rows_with(9, label="")), {},
                     "column 'label' has an empty label in line 11", id="label-empty-string"),
        pytest.param(lambda path: write_jsonl(path, every_row(label=lambda row: {"class": row["label"]})),
                     {"format": "jsonl"}, "label column 'label' holds struct<class: string>, not one name per row",
                     id="label-object"),
        pytest.param(lambda path: write_jsonl(path, every_row(doc=lambda row: [row["doc"]])),
                     {"format": "jsonl", "group_column": "doc"},
                     "group column 'doc' holds list<item: int64>, not one name per row", id="group-list"),
        pytest.param(lambda path: path.write_text("first,first,label\na,b,same\n"), {},
                     "column 'first' is named 2 times in its header", id="header-repeats-a-column"),
        pytest.param(lambda path: path.write_text("first,second,label\n"), {},
                     re.escape("no rows (a header alone, or an empty file)"), id="header-only"),
        pytest.param(lambda path: path.write_bytes("first,second,label\nsome words,more words,same\n"
                                                   "caf\u00e9 au lait,words,different\n".encode("latin-1")), {},
                     "column 'first' is not UTF-8 text: line 3, byte 3 of its cell; save the file as UTF-8",
                     id="latin-1"),
        pytest.param(lambda path: write_jsonl(path, every_row(label=lambda row: row["label"] == "same")),
                     {"format": "jsonl", "problem": "regression"},
                     "label column 'label' holds true/false, not numbers", id="regression-true-false"),
    ],
)  # fmt: skip
def test_a_cell_a_header_or_a_file_that_cannot_be_examples_is_named_with_its_row(tmp_path, write, change, message):
    """Each refused before anything is written, naming the file, the column and the row, never a cell's content."""
    path = tmp_path / "bad.data"
    write(path)
    task = files_task(tmp_path, train=str(path), **change)
    with pytest.raises(DataError, match=message) as error:
        prepare_task(task, str(tmp_path / "out"))
    assert str(error.value).startswith(f"{path}: ")
    assert not (tmp_path / "out").exists()


def test_a_header_that_holds_a_token_is_not_echoed(tmp_path):
    (tmp_path / "leaky.csv").write_text("hf_abcdefghijklmnopqrstuvwxyz0123,label\nsome words,yes\n")
    with pytest.raises(DataError, match=re.escape("no column 'first' (columns: hf_***, label)")) as refused:
        prepare_task(files_task(tmp_path, train=str(tmp_path / "leaky.csv")), str(tmp_path / "out"))
    assert "abcdefghijklmnop" not in str(refused.value)


def test_empty_texts_and_test_examples_train_also_holds_are_counted_and_said(tmp_path, capsys):
    """Allowed, but worth knowing: two examples without a first text, and the train file given again as test."""
    rows = rows_with(3, first="  ")
    rows[4]["first"] = ""
    path = write_csv(tmp_path / "blank.csv", rows)
    task = files_task(tmp_path, train=str(path), test=str(path), split={"validation_fraction": 0.25,
                      "test_fraction": 0, "seed": 0, "folds": None})  # fmt: skip
    splits = prepare_task(task, str(tmp_path / "out")).splits
    assert splits["train"]["empty_texts"] + splits["validation"]["empty_texts"] == 2
    assert splits["test"]["empty_texts"] == 2 and splits["test"]["also_in_train"] == splits["train"]["examples"]
    assert "also_in_train" not in splits["train"] and splits["validation"]["also_in_train"] == 0
    said = capsys.readouterr().out
    assert f"finetune task 'pairs': train and test are the same file ({path}): the test split measures memory" in said
    assert "finetune task 'pairs': 2 examples of the test split have no text (kept)" in said
    assert f"{splits['train']['examples']} examples of the test split are also in train, text for text" in said
    assert balance(splits["test"]).endswith(f"), 2 without text, {splits['train']['examples']} also in train")


@pytest.mark.parametrize("file_format", ["jsonl", "csv"])
def test_a_row_of_five_megabytes_is_read_whole(tmp_path, file_format):
    """The readers' blocks hold the longest row (pyarrow's default of 1 MB refused it as straddling two blocks)."""
    rows = rows_with(0, first="word " * 1_000_000)
    path = (write_jsonl if file_format == "jsonl" else write_csv)(tmp_path / f"long.{file_format}", rows)
    prepare_task(files_task(tmp_path, train=str(path), format=file_format), str(tmp_path / "out"))
    _, splits = read_task_dir(str(tmp_path / "out"))
    lengths = [len(text) for table in splits.values() for text in table.column("text").to_pylist()]
    assert max(lengths) == 5_000_000 and len(lengths) == 40


def test_a_parquet_text_column_of_categories_is_read_as_its_texts(tmp_path):
    import pyarrow.parquet

    rows = pair_rows(40)
    table = pa.table({name: [row[name] for row in rows] for name in ("first", "second", "label")})
    table = table.set_column(0, "first", table.column("first").dictionary_encode())  # pandas' categorical
    pyarrow.parquet.write_table(table, tmp_path / "pairs.parquet")
    prepare_task(files_task(tmp_path, train=str(tmp_path / "pairs.parquet"), format="parquet"), str(tmp_path / "out"))
    _, splits = read_task_dir(str(tmp_path / "out"))
    texts = sorted(text for table in splits.values() for text in table.column("text").to_pylist())
    assert texts == sorted(row["first"] for row in rows)


def test_whole_numbers_as_floats_are_classes_and_true_fractions_are_refused(tmp_path):
    rows = [{**row, "label": float(index % 2)} for index, row in enumerate(pair_rows(40))]
    prepare_task(files_task(tmp_path, train=str(write_jsonl(tmp_path / "floats.jsonl", rows)), format="jsonl"),
                 str(tmp_path / "out"))  # fmt: skip
    task, _ = read_task_dir(str(tmp_path / "out"))
    assert task.labels == ("0", "1")
    rows[5]["label"] = 0.5
    with pytest.raises(DataError, match="holds numbers with fractions; set problem: regression"):
        prepare_task(files_task(tmp_path, train=str(write_jsonl(tmp_path / "half.jsonl", rows)), format="jsonl"),
                     str(tmp_path / "out-half"))  # fmt: skip


def test_a_label_that_train_never_has_or_a_train_of_one_class_is_refused_counting_not_quoting_labels(tmp_path):
    write_csv(tmp_path / "valid.csv", [*pair_rows(8), {"first": "a b", "second": "c", "label": "unheard", "doc": 0}])
    task = files_task(tmp_path, validation=str(tmp_path / "valid.csv"))
    with pytest.raises(
        DataError, match="the validation split holds 1 label.s. that train never has, on 1 of its 9 "
    ) as error:
        prepare_task(task, str(tmp_path / "out"))
    assert "unheard" not in str(error.value)  # a cell's content, never quoted
    assert not (tmp_path / "out").exists()
    write_csv(tmp_path / "same.csv", [{**row, "label": "secretlabel"} for row in pair_rows(40)])
    with pytest.raises(DataError, match=r"train holds one class only \(its \d+ examples share one label\)") as error:
        prepare_task(files_task(tmp_path, train=str(tmp_path / "same.csv")), str(tmp_path / "out-same"))
    assert "secretlabel" not in str(error.value)


def test_an_empty_split_is_refused(tmp_path):
    write_csv(tmp_path / "few.csv", pair_rows(2))
    task = files_task(tmp_path, train=str(tmp_path / "few.csv"), split={"validation_fraction": 0.1,
                      "test_fraction": 0, "seed": 0, "folds": None})  # fmt: skip
    with pytest.raises(DataError, match="finetune task 'pairs': the validation split holds no example"):
        prepare_task(task, str(tmp_path / "out"))


@pytest.mark.parametrize("bad", ["NaN", "Infinity"])
def test_a_regression_label_that_is_not_finite_is_named_with_its_row(tmp_path, bad):
    path = tmp_path / "numbers.jsonl"
    lines = [json.dumps(row) for row in number_rows(6)]
    lines[4] = f'{{"text": "five words are in here", "score": {bad}}}'
    path.write_text("\n".join(lines[:2] + [""] + lines[2:]) + "\n")  # a blank line, which the reader skips
    task = files_task(tmp_path, format="jsonl", train=str(path), text_column="text", text_pair_column=None,
                      label_column="score", problem="regression")  # fmt: skip
    with pytest.raises(DataError, match=f"{path}: label .* in line 6 of column 'score' is not a finite number"):
        prepare_task(task, str(tmp_path / "out"))


def test_a_file_that_is_not_csv_is_named(tmp_path):
    (tmp_path / "broken.csv").write_bytes(b'first,second,label\n"a,b\n')
    with pytest.raises(DataError, match="broken.csv: not a readable csv file"):
        prepare_task(files_task(tmp_path, train=str(tmp_path / "broken.csv")), str(tmp_path / "out"))


def test_a_csv_row_of_another_width_is_named_by_its_line_without_its_cells(tmp_path):
    rows = "first,second,label,doc\n" + "a,b,same,1\n" * 3 + '"x\ny",hf_cellSecret0123456789,same,2,extra\n'
    (tmp_path / "wide.csv").write_text(rows)
    with pytest.raises(
        DataError, match=r"wide.csv: not a readable csv file \(Expected 4 columns, got 5 on line 5\)$"
    ) as error:
        prepare_task(files_task(tmp_path, train=str(tmp_path / "wide.csv")), str(tmp_path / "out"))
    assert "hf_cellSecret" not in str(error.value)


def test_a_readers_reason_keeps_no_quoted_value():
    reason = "In CSV column #2: Row #7: CSV conversion error to int64: invalid value 'hf_cellSecret0123'"
    assert without_cells(reason, "unused.csv") == (
        "In CSV column #2: Row #7: CSV conversion error to int64: invalid value '...'"
    )


def test_folds_test_every_speech_once_keep_each_speech_on_one_side_and_are_byte_identical_again(tmp_path):
    split = {"validation_fraction": 0.15, "test_fraction": 0, "seed": 0, "folds": 5}
    described = prepare_task(embedded_task(split=split), str(tmp_path / "party"))
    assert described.folds == 5 and described.splits["test"]["groups"] == 181
    assert described.splits["test"]["class_counts"] == {"Democratic": 78 * 8, "Republican": 103 * 8}
    tested = []
    for fold in range(1, 6):
        task, splits = read_task_dir(str(tmp_path / "party" / f"fold-{fold}"))
        assert task.fold == fold and task.folds == 5 and task.carved == ("test", "validation")
        speeches = {name: set(table.column("group").to_pylist()) for name, table in splits.items()}
        assert all(not speeches[a] & speeches[b] for a in speeches for b in speeches if a != b)
        assert len(speeches["test"]) in (36, 37)  # 181 speeches dealt to 5 folds
        tested += splits["test"].column("group").to_pylist()
    assert len(tested) == 181 * 8 and len(set(tested)) == 181  # every passage tested once, in one fold
    again = prepare_task(embedded_task(split=split), str(tmp_path / "again"))
    files = sorted(path.relative_to(tmp_path / "party") for path in (tmp_path / "party").rglob("*.*"))
    assert len(files) == 21 and again == described  # 5 folds x (3 splits + task.json), and the pooled task.json
    assert all((tmp_path / "party" / path).read_bytes() == (tmp_path / "again" / path).read_bytes() for path in files)


def test_folds_deal_each_class_s_groups_evenly():
    groups = [str(index // 2) for index in range(100)]
    labels = ["a" if index // 2 < 12 else "b" for index in range(100)]
    table = pa.table({"text": groups, "label": labels, "group": groups})
    fold_of_row = fold_numbers("t", table, 4, seed=3, classes=True)
    assert all(len(set(fold_of_row[index : index + 2])) == 1 for index in range(0, 100, 2))  # a group in one fold
    per_fold = [
        {group for group, fold in zip(groups, fold_of_row, strict=True) if fold == wanted} for wanted in range(4)
    ]
    assert [sum(int(group) < 12 for group in found) for found in per_fold] == [3, 3, 3, 3]  # class a: 12 groups
    assert sorted(len(found) for found in per_fold) == [12, 12, 13, 13]


def test_more_folds_than_groups_and_folds_beside_a_given_test_split_are_refused(tmp_path):
    split = {"validation_fraction": 0.25, "test_fraction": 0, "seed": 0, "folds": 11}
    with pytest.raises(DataError, match="'pairs': split.folds is 11, but its examples hold 10 groups"):
        prepare_task(files_task(tmp_path, group_column="doc", split=split), str(tmp_path / "out"))
    write_csv(tmp_path / "test.csv", pair_rows(8))
    task = files_task(tmp_path, test=str(tmp_path / "test.csv"), split={**split, "folds": 2})
    with pytest.raises(DataError, match="'pairs': split.folds cannot be used beside the task's own test split"):
        prepare_task(task, str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_a_task_source_reads_the_train_split_and_never_opens_validation_or_test(tmp_path):
    prepare_task(files_task(tmp_path), str(tmp_path / "pairs"))
    _, splits = read_task_dir(str(tmp_path / "pairs"))
    for split in ("validation", "test"):
        (tmp_path / "pairs" / f"{split}.arrow").write_bytes(b"not read")  # a reader that opened it would fail
    source = {"name": "pairs-text", "type": "task", "task": "pairs"}
    assert plan_source(source) == [["results/finetune/pairs/data"]]
    batches = read_documents(source, [str(tmp_path / "pairs")], 0, 10**6)
    train = splits["train"]
    assert len(train) == 20 and [text for batch in batches for text in batch.to_pylist()] == [
        *train.column("text").to_pylist(), *train.column("text_pair").to_pylist()]  # fmt: skip
    longest = max(range(len(train)), key=lambda row: len(train.column("text")[row].as_py()))
    limit = len(train.column("text")[longest].as_py()) - 1
    with pytest.raises(DataError, match=rf"pairs/train.arrow: column 'text': row {longest}: a document of"):
        list(read_documents(source, [str(tmp_path / "pairs")], 0, limit))
