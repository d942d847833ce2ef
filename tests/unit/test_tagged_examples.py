"""Word-tagging examples: CoNLL column files and tables of word and tag lists read into one flat table, their tag
scheme detected or checked, and every bad input named by file and line (or row), never quoting a word or a tag."""

import json

import pyarrow as pa
import pyarrow.parquet
import pytest

from snakebert.errors import DataError
from snakebert.finetune.examples import GROUP, LABEL, TEXT, Where, read_file
from snakebert.finetune.tagged_examples import (
    MAX_SENTENCE_WORDS,
    combined_scheme,
    read_conll,
    tag_names,
    tag_scheme,
    tagged_examples,
)

CONLL_COLUMNS = ["text", "pos", "chunk", "label"]
COLUMNS = {TEXT: "tokens", LABEL: "ner_tags", GROUP: None}


def write(path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def write_jsonl(path, rows: list[dict]) -> str:
    return write(path, "".join(json.dumps(row) + "\n" for row in rows))


def read_jsonl(path: str) -> pa.Table:
    return tagged_examples(read_file(path, "jsonl"), COLUMNS, Where(path, "jsonl"))


def labels(*sentences: list[str]) -> pa.ChunkedArray:
    return pa.chunked_array([pa.array(list(sentences), pa.list_(pa.string()))])


CONLL = """-DOCSTART- -X- -X- O

EU NNP B-NP B-ORG
rejects VBZ B-VP O
German JJ B-NP B-MISC

Peter NNP B-NP B-PER
Blackburn NNP I-NP I-PER

-DOCSTART- -X- -X- O

BRUSSELS NNP B-NP B-LOC
"""


def test_a_conll_file_with_documents_groups_its_sentences_by_document(tmp_path):
    path = write(tmp_path / "train.conll", CONLL)
    table, where = read_conll(path, CONLL_COLUMNS, "text", "label")
    assert table.column(TEXT).to_pylist() == [["EU", "rejects", "German"], ["Peter", "Blackburn"], ["BRUSSELS"]]
    assert table.column(LABEL).to_pylist() == [["B-ORG", "O", "B-MISC"], ["B-PER", "I-PER"], ["B-LOC"]]
    assert table.column(GROUP).to_pylist() == ["1", "1", "2"]
    assert str(where) == path and [where.row(row) for row in range(3)] == ["line 3", "line 7", "line 12"]


def test_sentences_before_the_first_docstart_are_document_0(tmp_path):
    path = write(tmp_path / "train.conll", "a x\n\n-DOCSTART- O\nb y\n")
    table, _ = read_conll(path, ["text", "label"], "text", "label")
    assert table.column(GROUP).to_pylist() == ["0", "1"]


def test_a_conll_file_without_documents_makes_each_sentence_its_group_and_blank_lines_one_break(tmp_path):
    text = "\n\nThe DT O\ncat NN B-ANIMAL\n\n  \n\t\n\nsat VBD O\r\n\r\nhome NN O"  # no newline at its end
    path = write(tmp_path / "train.conll", text)
    table, where = read_conll(path, ["text", "pos", "label"], "text", "label")
    assert table.column(TEXT).to_pylist() == [["The", "cat"], ["sat"], ["home"]]
    assert table.column(LABEL).to_pylist() == [["O", "B-ANIMAL"], ["O"], ["O"]]
    assert table.column(GROUP).to_pylist() == ["0", "1", "2"]
    assert [where.row(row) for row in range(3)] == ["line 3", "line 9", "line 11"]


def test_the_label_is_picked_by_name_among_four_columns(tmp_path):
    path = write(tmp_path / "train.conll", "EU B-ORG NNP B-NP\nrejects O VBZ B-VP\n")
    table, _ = read_conll(path, ["text", "label", "pos", "chunk"], "text", "label")
    assert table.column(LABEL).to_pylist() == [["B-ORG", "O"]]
    table, _ = read_conll(path, ["text", "ner", "pos", "label"], "text", "label")
    assert table.column(LABEL).to_pylist() == [["B-NP", "B-VP"]]


def test_a_line_of_another_field_count_is_named(tmp_path):
    path = write(tmp_path / "train.conll", CONLL.replace("Blackburn NNP I-NP I-PER", "Blackburn I-PER"))
    with pytest.raises(DataError) as error:
        read_conll(path, CONLL_COLUMNS, "text", "label")
    assert str(error.value) == f"{path}: line 8 has 2 fields, but conll_columns names 4"


def test_a_byte_that_is_not_utf8_is_named_by_line_and_byte(tmp_path):
    path = tmp_path / "train.conll"
    path.write_bytes(b"EU B-ORG\n\nM\xfcnchen B-LOC\n")
    with pytest.raises(DataError) as error:
        read_conll(str(path), ["text", "label"], "text", "label")
    assert str(error.value) == f"{path}: not UTF-8 text: line 3, byte 1; save the file as UTF-8"


def test_a_file_of_no_sentence_is_refused(tmp_path):
    path = write(tmp_path / "train.conll", "-DOCSTART- -X- -X- O\n\n\n")
    with pytest.raises(DataError, match="no sentence") as error:
        read_conll(path, CONLL_COLUMNS, "text", "label")
    assert str(error.value).startswith(f"{path}: ")


def test_a_sentence_too_long_is_named_by_its_first_line(tmp_path):
    words = "".join(f"w{index} O\n" for index in range(MAX_SENTENCE_WORDS + 1))
    path = write(tmp_path / "train.conll", "a O\n\n" + words)
    with pytest.raises(DataError) as error:
        read_conll(path, ["text", "label"], "text", "label")
    said = str(error.value)
    assert said.startswith(f"{path}: the sentence starting on line 3 has more than 1000 words")
    assert "blank line between sentences missing" in said and "w0" not in said.removeprefix(path)  # no word quoted
    path = write(tmp_path / "fits.conll", "".join(f"w{index} O\n" for index in range(MAX_SENTENCE_WORDS)))
    assert read_conll(path, ["text", "label"], "text", "label")[0].column(TEXT).to_pylist()[0][-1] == "w999"


def test_a_text_or_label_column_not_among_the_columns_is_named_with_them(tmp_path):
    path = write(tmp_path / "train.conll", CONLL)
    with pytest.raises(DataError) as error:
        read_conll(path, CONLL_COLUMNS, "text", "ner")
    assert str(error.value) == f"{path}: label_column 'ner' is not among conll_columns (text, pos, chunk, label)"
    with pytest.raises(DataError, match="text_column 'word' is not among"):
        read_conll(path, CONLL_COLUMNS, "word", "label")


def test_jsonl_lists_are_read_with_integer_tags_as_text(tmp_path):
    rows = [{"tokens": ["EU", "rejects"], "ner_tags": [3, 0]}, {"tokens": ["Peter"], "ner_tags": [1]}]
    path = write_jsonl(tmp_path / "train.jsonl", rows)
    table = read_jsonl(path)
    assert table.column(LABEL).to_pylist() == [["3", "0"], ["1"]]
    assert table.column(GROUP).to_pylist() == ["0", "1"]
    assert table.schema.field(TEXT).type == pa.list_(pa.string())


def test_jsonl_groups_are_read_from_their_column(tmp_path):
    rows = [{"tokens": ["a"], "ner_tags": ["O"], "doc": 7}, {"tokens": ["b"], "ner_tags": ["O"], "doc": 7}]
    path = write_jsonl(tmp_path / "train.jsonl", rows)
    table = tagged_examples(read_file(path, "jsonl"), {**COLUMNS, GROUP: "doc"}, Where(path, "jsonl"))
    assert table.column(GROUP).to_pylist() == ["7", "7"]


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ([{"tokens": ["a"], "ner_tags": ["O"]}, {"tokens": ["Sekret", "b"], "ner_tags": ["O"]}],
         "line 3 holds 2 words and 1 tags; a tagging task needs one tag per word"),
        ([{"tokens": ["a"], "ner_tags": ["O"]}, {"tokens": [], "ner_tags": []}],
         "line 3 holds no words (an empty sentence)"),
        ([{"tokens": ["a"], "ner_tags": ["O"]}, {"tokens": ["Sekret", None], "ner_tags": ["O", "O"]}],
         "column 'tokens' has a missing or empty word in line 3, word 2"),
        ([{"tokens": ["Sekret", " "], "ner_tags": ["O", "O"]}],
         "column 'tokens' has a missing or empty word in line 1, word 2"),
        ([{"tokens": ["a"], "ner_tags": ["O"]}, {"tokens": ["Sekret"], "ner_tags": None}],
         "column 'ner_tags' has no list of tags in line 3"),
        ([{"tokens": "Sekret words", "ner_tags": ["O", "O"]}],
         "column 'tokens' holds string, but a tagging task needs a list of words per row"),
    ],
)  # fmt: skip
def test_bad_jsonl_rows_are_named_by_line_without_their_words(tmp_path, rows, said):
    path = write_jsonl(tmp_path / "train.jsonl", rows)
    text = (tmp_path / "train.jsonl").read_text()
    write(tmp_path / "train.jsonl", text.replace("\n", "\n\n", 1))  # a blank line: rows are named as an editor shows
    with pytest.raises(DataError) as error:
        read_jsonl(path)
    assert str(error.value) == f"{path}: {said}" and "Sekret" not in str(error.value)


def test_a_missing_column_is_named(tmp_path):
    path = write_jsonl(tmp_path / "train.jsonl", [{"words": ["a"], "ner_tags": ["O"]}])
    with pytest.raises(DataError, match=r"no column 'tokens' \(columns: words, ner_tags\)"):
        read_jsonl(path)


def test_a_sentence_too_long_in_a_table_is_named_by_row(tmp_path):
    words = [f"w{index}" for index in range(MAX_SENTENCE_WORDS + 1)]
    table = pa.table({"tokens": [["a"], words], "ner_tags": [["O"], ["O"] * len(words)]})
    with pytest.raises(DataError) as error:
        tagged_examples(table, COLUMNS, "conll2003 train")
    assert str(error.value) == "conll2003 train: row 1 (counted from 0) holds 1001 words, more than 1000"


def test_parquet_list_columns_are_read(tmp_path):
    path = str(tmp_path / "train.parquet")
    table = pa.table(
        {"tokens": pa.array([["EU", "rejects"]], pa.large_list(pa.string())), "ner_tags": [["B-ORG", "O"]]}
    )
    pyarrow.parquet.write_table(table, path)
    read = tagged_examples(read_file(path, "parquet"), COLUMNS, Where(path, "parquet"))
    assert read.to_pylist() == [{TEXT: ["EU", "rejects"], LABEL: ["B-ORG", "O"], GROUP: "0"}]
    pyarrow.parquet.write_table(pa.table({"tokens": [[1.5]], "ner_tags": [["O"]]}), path)
    with pytest.raises(DataError, match="column 'tokens' holds lists of double, not of words as text"):
        tagged_examples(read_file(path, "parquet"), COLUMNS, Where(path, "parquet"))


@pytest.mark.parametrize(
    ("tags", "scheme"),
    [
        ((["B-PER", "I-PER", "O"], ["B-LOC"]), "iob2"),
        ((["B-PER", "E-PER", "O"], ["S-LOC"]), "iobes"),
        ((["O", "PER", "PER"], ["LOC"]), "plain"),
        ((["POSITIVE"], ["NEGATIVE"]), "plain"),
    ],
)
def test_the_tag_scheme_is_detected(tags, scheme):
    assert tag_scheme(labels(*tags), None, Where("train")) == scheme
    assert tag_scheme(labels(*tags), scheme, Where("train")) == scheme


def test_iob2_tags_fit_the_declared_iobes():
    assert tag_scheme(labels(["B-PER", "I-PER", "O"]), "iobes", Where("train")) == "iobes"


def test_a_declared_iob2_refuses_an_s_tag_naming_its_line_and_word(tmp_path):
    path = write(tmp_path / "train.conll", "EU B-ORG\nrejects O\n\nPeter B-PER\nSekret S-PER\n")
    table, where = read_conll(path, ["text", "label"], "text", "label")
    with pytest.raises(DataError) as error:
        tag_scheme(table.column(LABEL), "iob2", where)
    said = str(error.value)
    assert said.startswith(f"{path}: the tag of word 2 in line 4 does not fit the iob2 scheme (as declared)")
    assert "S-PER" not in said and "Sekret" not in said


def test_a_mix_of_bare_and_prefixed_tags_is_refused(tmp_path):
    rows = [{"tokens": ["a", "b"], "ner_tags": ["B-PER", "O"]}, {"tokens": ["c", "d"], "ner_tags": ["O", "PERSONA"]}]
    path = write_jsonl(tmp_path / "train.jsonl", rows)
    table = read_jsonl(path)
    with pytest.raises(DataError) as error:
        tag_scheme(table.column(LABEL), None, Where(path, "jsonl"))
    said = str(error.value)
    assert said.startswith(f"{path}: the tag of word 2 in line 2 does not fit the iob2 scheme (detected")
    assert "PERSONA" not in said
    with pytest.raises(DataError, match="word 1 in row 0 .* does not fit the plain scheme"):
        tag_scheme(labels(["B-PER", "O"]), "plain", Where("train"))


def test_an_unknown_declared_scheme_is_named():
    with pytest.raises(DataError, match="train: tag scheme 'bio' is not one of iob2, iobes, plain"):
        tag_scheme(labels(["O"]), "bio", Where("train"))


def test_the_splits_schemes_combine():
    assert combined_scheme({"train": "iob2", "test": "iob2"}, "ner") == "iob2"
    assert combined_scheme({"train": "iobes", "validation": "iob2"}, "ner") == "iobes"
    with pytest.raises(DataError) as error:
        combined_scheme({"train": "iob2", "test": "plain"}, "ner")
    assert (
        str(error.value)
        == "finetune task 'ner': its splits' tags follow schemes that do not mix (train iob2, test plain)"
    )


def test_tag_names_put_o_first_then_order_by_entity_type_and_prefix():
    first = pa.table({LABEL: labels(["I-PER", "B-PER", "O"], ["S-LOC", "E-PER"])})
    second = pa.table({LABEL: labels(["B-LOC", "I-PER"])})
    assert tag_names([first, second]) == ["O", "B-LOC", "S-LOC", "B-PER", "I-PER", "E-PER"]
    assert tag_names([pa.table({LABEL: labels(["PER", "O", "LOC"])})]) == ["O", "LOC", "PER"]
