"""Word tagging (problem: token_classification) end to end on a tiny saved BERT: CoNLL, JSON Lines and Parquet files
prepared by document, bad files refused by file and line before any output, a fine-tuning run reproducible to the
byte whose predictions hold a tag per word, the majority and per-word baselines, the linear probe, and the summary,
whose bootstrap scores entity F1 anew on each resample of sentences."""

import json
import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet
import pytest
from finetune_data import task_description, write_conll
from finetune_jobs import cpu_job, summarized
from helpers import save_tiny_model, write_jsonl
from seqeval.metrics import accuracy_score, f1_score, precision_score, recall_score
from shape_log import changed_ops, training_step_shapes

from snakebert.errors import DataError
from snakebert.finetune.baselines import majority, run_baselines, word_tags
from snakebert.finetune.baselines_file import read_baselines
from snakebert.finetune.frozen_states import STRENGTHS
from snakebert.finetune.interval import MIN_GROUPS, NOT_SHOWN
from snakebert.finetune.job import FinetuneJob
from snakebert.finetune.linear_probe import probe_model
from snakebert.finetune.prepare import prepare_task, read_task_dir
from snakebert.finetune.problems import PROBLEMS
from snakebert.finetune.tag_metrics import TAG_METRICS
from snakebert.finetune.train import build_trainer, finetune, load_model, load_tokenizer
from snakebert.finetune.word_windows import WordWindows

TAGS = ["O", "B-LOC", "B-PER", "I-PER"]  # as tag_names orders them: O first, then by entity type and prefix
FIRST_NAMES, LAST_NAMES = ["engine", "grain"], ["heat", "nine"]
PLACES = ["mountains", "village", "rivers", "library"]
FILLERS = ["the", "and", "at", "met", "to", "from", "for", "on", "with", "a", "must", "opens", "bakers", "committee"]
DOCUMENTS, SENTENCES = 12, 5
SPLIT = {"validation_fraction": 0.25, "test_fraction": 0.5, "seed": 0, "folds": None}  # 3, 6 and 3 documents
RECIPE = {"learning_rate": 5e-3, "epochs": 2, "batch_size": 8, "max_length": 16, "warmup_ratio": 0.1,
          "weight_decay": 0.01}  # fmt: skip
MAX_LENGTH = RECIPE["max_length"]


def sentence(draw: random.Random) -> list[tuple[str, str]]:
    """A person (one or two words), maybe a place, among filler words (words the tiny tokenizer cuts into pieces)."""
    words = [(draw.choice(FILLERS), "O") for _ in range(draw.randint(0, 3))]
    words.append((draw.choice(FIRST_NAMES), "B-PER"))
    if draw.random() < 0.6:
        words.append((draw.choice(LAST_NAMES), "I-PER"))
    words += [(draw.choice(FILLERS), "O") for _ in range(draw.randint(1, 5))]
    if draw.random() < 0.8:
        words.append((draw.choice(PLACES), "B-LOC"))
    return words + [(draw.choice(FILLERS), "O") for _ in range(draw.randint(0, 4))]


def documents() -> list[list[list[tuple[str, str]]]]:
    """DOCUMENTS documents of SENTENCES sentences, the same every time."""
    draw = random.Random(7)
    return [[sentence(draw) for _ in range(SENTENCES)] for _ in range(DOCUMENTS)]


def rows(docs) -> list[dict]:
    return [{"tokens": [word for word, _ in words], "tags": [tag for _, tag in words], "doc": number}
            for number, doc in enumerate(docs) for words in doc]  # fmt: skip


def write_text(path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def write_parquet(path, found: list[dict]) -> str:
    pyarrow.parquet.write_table(pa.Table.from_pylist(found), path)
    return str(path)


def tagging_task(path: str, file_format: str, **overrides) -> dict:
    """A `files` task with every schema default filled, as the workflow hands it over."""
    table = file_format != "conll"
    task = {"name": "names", "type": "files", "format": file_format, "train": path, "validation": None,
            "test": None, "text_column": "tokens" if table else "text", "text_pair_column": None,
            "label_column": "tags" if table else "label", "group_column": "doc" if table else None,
            "conll_columns": ["text", "label"], "tag_scheme": None, "problem": "token_classification",
            "metrics": None, "split": SPLIT, "recipe": {}, "follow_symlinks": False}  # fmt: skip
    return {**task, **overrides}


WRITERS = {
    "conll": lambda folder, docs: str(write_conll(folder / "train.conll", rows(docs))),
    "jsonl": lambda folder, docs: str(write_jsonl(folder / "train.jsonl", rows(docs))),
    "parquet": lambda folder, docs: write_parquet(folder / "train.parquet", rows(docs)),
}


@pytest.fixture(scope="module")
def prepared(tiny_data, tmp_path_factory):
    """The tiny model and the CoNLL task prepared: 15 train, 15 validation and 30 test sentences."""
    root = tmp_path_factory.mktemp("tagging")
    model = save_tiny_model(tiny_data.tokenizer, root / "model")
    prepare_task(tagging_task(WRITERS["conll"](root, documents()), "conll"), str(root / "names"))
    return root, model, root / "names"


def job(prepared, folder, **overrides) -> FinetuneJob:
    _, model, task = prepared
    return cpu_job(task, model, folder, RECIPE, **overrides)


@pytest.fixture(scope="module")
def tuned(prepared):
    """One fine-tuning run of the pretrained model, seed 1."""
    root = prepared[0]
    out = root / "run-a" / "result.json"
    return out, finetune(job(prepared, root / "run-a"), str(out))


@pytest.fixture(scope="module")
def probed(prepared):
    root, model, task = prepared
    outs = [root / f"probe-{seed}.json" for seed in (1, 2)]
    probe_model(str(task), "pretrained", "pretrained", model, MAX_LENGTH, 8, list(map(str, outs)))
    return outs


@pytest.fixture(scope="module")
def baselines(prepared):
    root, _, task = prepared
    return root / "baselines.json", run_baselines(str(task), str(root / "baselines.json"))


def as_tags(table: pa.Table, names: list[str]) -> list[list[tuple[str, str]]]:
    """A prepared split's sentences as (word, tag name) pairs."""
    words, tags = table.column("text").to_pylist(), table.column("label").to_pylist()
    return [
        [(word, names[tag]) for word, tag in zip(*sentence, strict=True)] for sentence in zip(words, tags, strict=True)
    ]


# 1. Preparing a tagging task


@pytest.mark.parametrize("file_format", list(WRITERS))
def test_a_tagging_file_is_prepared_by_document_with_list_columns_and_word_counts(tmp_path, file_format):
    docs = documents()
    path = WRITERS[file_format](tmp_path, docs)
    described = prepare_task(tagging_task(path, file_format), str(tmp_path / "names"))
    task, splits = read_task_dir(str(tmp_path / "names"))
    assert task == described
    assert task.problem == "token_classification" and task.tag_scheme == "iob2"
    assert list(task.labels) == TAGS and task.metrics == tuple(TAG_METRICS) and task.main_metric == "entity_f1"
    assert task.text_pair is False and task.carved == ("test", "validation")
    groups = {split: table.column("group").to_pylist() for split, table in splits.items()}
    assert [len(set(found)) for found in groups.values()] == [3, 3, 6]
    assert not set(groups["train"]) & set(groups["validation"]) and not set(groups["train"]) & set(groups["test"])
    assert not set(groups["validation"]) & set(groups["test"])
    names = [str(number) for number in range(1, DOCUMENTS + 1)] if file_format == "conll" else None
    names = names or [str(number) for number in range(DOCUMENTS)]
    for split, table in splits.items():
        assert table.schema.field("text").type == pa.list_(pa.string())
        assert pa.types.is_list(table.schema.field("label").type)
        assert pa.types.is_integer(table.schema.field("label").type.value_type)
        kept = [doc for name, doc in zip(names, docs, strict=True) if name in groups[split]]
        expected = [words for doc in kept for words in doc]  # whole documents, in file order
        assert as_tags(table, task.labels) == expected
        counts = task.splits[split]
        tags = [tag for words in expected for _, tag in words]
        assert counts["examples"] == len(expected) == SENTENCES * len(kept) and counts["groups"] == len(kept)
        assert counts["words"] == len(tags) and counts["tag_counts"] == {tag: tags.count(tag) for tag in TAGS}
        assert list(counts["tag_counts"]) == TAGS
        assert counts["empty_texts"] == 0


def test_the_three_formats_give_the_same_sentences_and_counts(tmp_path):
    found = {}
    for file_format, write in WRITERS.items():
        (tmp_path / file_format).mkdir()
        found[file_format] = prepare_task(tagging_task(write(tmp_path / file_format, documents()), file_format),
                                          str(tmp_path / file_format / "names"))  # fmt: skip
    counts = [{split: {key: value for key, value in split_counts.items() if key != "sha256"}
               for split, split_counts in described.splits.items()} for described in found.values()]  # fmt: skip
    assert counts[0] == counts[1] == counts[2]


# 2. Bad files, refused before any output


def jsonl_rows(bad: dict) -> list[dict]:
    good = [{"tokens": ["the", "engine"], "tags": ["O", "B-PER"]}] * 3
    return [*good, bad, *good]


BAD_FILES = {
    "more words than tags": (
        "jsonl",
        lambda path: write_jsonl(path, jsonl_rows({"tokens": ["the", "engine", "heat"], "tags": ["O", "B-PER"]})),
        None,
        "line 4 holds 3 words and 2 tags; a tagging task needs one tag per word",
    ),
    "an S- tag where iob2 is declared": (
        "conll",
        lambda path: write_text(path, "-DOCSTART- O\n\nthe O\nengine B-PER\n\nat O\ngrain S-PER\nto O\n\n"),
        "iob2",
        "the tag of word 2 in line 6 does not fit the iob2 scheme (as declared)",
    ),
    "an empty sentence": (
        "jsonl",
        lambda path: write_jsonl(path, jsonl_rows({"tokens": [], "tags": []})),
        None,
        "line 4 holds no words (an empty sentence)",
    ),
    "no blank line between 100,000 words": (
        "conll",
        lambda path: write_text(path, "the O\nengine B-PER\n\n-DOCSTART- O\n\n" + "at O\n" * 100_000),
        None,
        "the sentence starting on line 6 has more than 1000 words; is a blank line between sentences missing?",
    ),
    "a line without its tag": (
        "conll",
        lambda path: write_text(path, "the O\nengine B-PER\n\nat O\ngrain\nto O\n"),
        None,
        "line 5 has 1 fields, but conll_columns names 2",
    ),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_tagging_file_is_named_by_file_and_line_and_leaves_no_output(tmp_path, case):
    file_format, write, scheme, said = BAD_FILES[case]
    path = tmp_path / f"train.{file_format}"
    write(path)
    out = tmp_path / "names"
    with pytest.raises(DataError) as error:
        prepare_task(tagging_task(str(path), file_format, tag_scheme=scheme), str(out))
    assert str(error.value).startswith(f"{path}: ") and said in str(error.value)
    assert not out.exists() and not list(tmp_path.glob(".names*"))


# 3. A fine-tuning run


def test_some_sentences_need_several_windows_and_each_word_is_read_at_its_first_piece(prepared):
    _, model, task = prepared
    table = read_task_dir(str(task))[1]["test"]
    tokenizer = load_tokenizer(model, "pretrained")
    windows = WordWindows(table, tokenizer, MAX_LENGTH)
    assert windows.count > len(table)  # else the run below would not test the cut into windows
    ids, labels = windows.inputs["input_ids"], windows.labels
    sentences, tags = table.column("text").to_pylist(), table.column("label").to_pylist()
    for words, truth, chosen, positions in zip(
        sentences, tags, windows.word_window, windows.word_position, strict=True
    ):
        firsts = [tokenizer(word, add_special_tokens=False)["input_ids"][0] for word in words]
        assert [int(ids[window, position]) for window, position in zip(chosen, positions, strict=True)] == firsts
        assert [int(labels[window, position]) for window, position in zip(chosen, positions, strict=True)] == truth


def test_every_tagging_step_has_the_same_shapes(prepared, tmp_path):
    """One graph on Gaudi: windows padded to max_length with a label per position, whole batches, whatever the
    sentences' lengths."""
    run = job(prepared, tmp_path)
    task, tables = read_task_dir(run.task_dir)
    tokenizer = load_tokenizer(run.source, run.name, PROBLEMS[task.problem].tokenizer_options)
    splits = {split: WordWindows(table, tokenizer, MAX_LENGTH, 8) for split, table in tables.items()}
    trainer = build_trainer(run, task, load_model(run, task), splits, tmp_path / "run")
    batches = list(trainer.get_train_dataloader())
    lengths = {int(batch["attention_mask"].sum()) for batch in batches}
    shapes = {(tuple(batch["input_ids"].shape), tuple(batch["labels"].shape)) for batch in batches}
    assert len(lengths) > 1 and shapes == {((RECIPE["batch_size"], MAX_LENGTH), (RECIPE["batch_size"], MAX_LENGTH))}
    assert not changed_ops([training_step_shapes(trainer, batch) for batch in batches[:3]])


def test_a_run_scores_entities_predicts_a_tag_per_word_and_gives_the_same_bytes_again(prepared, tuned):
    out, result = tuned
    task, splits = read_task_dir(str(prepared[2]))
    for split, scores in (("validation", result.validation), ("test", result.test)):
        assert list(scores) == list(TAG_METRICS)
        assert all(value is None or (isinstance(value, float) and 0 <= value <= 1) for value in scores.values())
        assert isinstance(result.classes_predicted[split], int)
        assert 1 <= result.classes_predicted[split] <= len(TAGS)
    truth = splits["test"].column("label").to_pylist()
    assert len(result.predictions) == len(truth) == task.splits["test"]["examples"]
    assert [len(found) for found in result.predictions] == [len(words) for words in truth]
    assert all(tag in range(len(TAGS)) for found in result.predictions for tag in found)
    scored = PROBLEMS["token_classification"].scores(list(TAG_METRICS), truth, result.predictions, task)
    assert scored == result.test  # the test scores are the predictions'
    assert result.diverged is None and 1 <= result.best_epoch <= RECIPE["epochs"]
    again = prepared[0] / "run-b" / "result.json"
    finetune(job(prepared, prepared[0] / "run-b"), str(again))
    assert again.read_bytes() == out.read_bytes()


# 4. The baselines


def test_the_baselines_of_a_tagging_task_are_the_majority_tag_and_each_words_tag_and_not_tfidf(prepared, baselines):
    path, found = baselines
    task, splits = read_task_dir(str(prepared[2]))
    assert set(found) == {"majority", "word_tags"} and read_baselines(str(path)) == found
    truth = splits["test"].column("label").to_pylist()
    assert found["majority"].predictions == [[0] * len(words) for words in truth]  # O everywhere
    counts = task.splits["test"]
    assert counts["tag_counts"]["B-PER"] > 0
    assert found["majority"].test == {"entity_f1": 0.0, "entity_precision": None, "entity_recall": 0.0,
                                         "token_accuracy": counts["tag_counts"]["O"] / counts["words"]}  # fmt: skip
    assert [len(words) for words in found["word_tags"].predictions] == [len(words) for words in truth]
    assert found["word_tags"].test["entity_f1"] > 0 and found["majority"].fold is None


def split_of(*sentences: list[tuple[str, str]]) -> pa.Table:
    words = [[word for word, _ in sentence] for sentence in sentences]
    tags = [[TAGS.index(tag) for _, tag in sentence] for sentence in sentences]
    groups = [str(number) for number in range(len(sentences))]
    return pa.table({"text": pa.array(words, pa.list_(pa.string())), "label": tags, "group": groups})


def test_word_tags_answers_each_words_most_frequent_train_tag_and_the_majority_tag_for_unseen_words():
    task = task_description(problem="token_classification", labels=TAGS, tag_scheme="iob2", metrics=list(TAG_METRICS))
    train = split_of(
        [("paris", "B-LOC"), ("is", "O"), ("far", "O")],
        [("paris", "B-PER"), ("hilton", "I-PER"), ("is", "O"), ("paris", "B-LOC")],
        [("jo", "B-PER"), ("and", "O"), ("tie", "B-PER"), ("and", "O"), ("tie", "B-LOC")],  # a tie: B-LOC first
        [("jo", "B-PER"), ("hilton", "I-PER"), ("is", "I-PER"), ("far", "O")],
    )
    test = split_of(
        [("paris", "B-PER"), ("hilton", "I-PER"), ("is", "O"), ("zurich", "B-LOC")],
        [("jo", "B-PER"), ("tie", "B-LOC"), ("unseen", "O")],
    )
    splits = {"train": train, "validation": test, "test": test}
    found = word_tags(splits, task)
    expected = [["B-LOC", "I-PER", "O", "O"], ["B-PER", "B-LOC", "O"]]
    assert [[TAGS[tag] for tag in sentence] for sentence in found.predictions] == expected
    # truth entities: PER(paris hilton), LOC(zurich), PER(jo), LOC(tie); predicted: LOC(paris), PER(hilton: a stray
    # I- starts one), PER(jo), LOC(tie): 2 of 4 right
    assert found.test == {"entity_f1": 0.5, "entity_precision": 0.5, "entity_recall": 0.5,
                             "token_accuracy": 5 / 7}  # fmt: skip
    assert found.test["entity_f1"] == pytest.approx(
        f1_score([["B-PER", "I-PER", "O", "B-LOC"], ["B-PER", "B-LOC", "O"]], expected)
    )
    assert majority(splits, task).predictions == [[0, 0, 0, 0], [0, 0, 0]]  # O: 6 of train's 16 words


# 5. The linear probe


def test_the_linear_probe_of_a_tagging_task_writes_each_seeds_scores_and_strength(prepared, probed):
    task, splits = read_task_dir(str(prepared[2]))
    found = [json.loads(path.read_text()) for path in probed]
    assert [run["seed"] for run in found] == [1, 2]
    truth = splits["test"].column("label").to_pylist()
    for run in found:
        assert run["protocol"] == "linear_probe" and run["model"] == "pretrained" and run["strength"] in STRENGTHS
        for split in ("validation", "test"):
            assert list(run[split]) == list(TAG_METRICS)
            assert all(value is None or 0 <= value <= 1 for value in run[split].values())
        assert [len(words) for words in run["predictions"]] == [len(words) for words in truth]
    assert found[0]["test"] == found[1]["test"] and found[0]["predictions"] == found[1]["predictions"]


# 6. The summary and its bootstrap


def test_the_summary_holds_the_runs_the_baselines_and_the_probe_with_comparisons(prepared, tuned, probed, baselines):
    root, _, task_dir = prepared
    out = root / "metrics.json"
    found = summarized(str(task_dir / "task.json"), [str(tuned[0])], list(map(str, probed)), [5e-3],
                           [str(baselines[0])], str(out))  # fmt: skip
    assert json.loads(out.read_text()) == json.loads(json.dumps(found))
    assert found["problem"] == "token_classification" and found["main_metric"] == "entity_f1"
    assert found["tag_scheme"] == "iob2" and "an I- tag after O" in found["entities"]  # how a stray I- is counted
    assert found["splits"]["test"]["words"] > 0 and list(found["splits"]["test"]["tag_counts"]) == TAGS
    assert found["bootstrap"]["groups"] == 6 >= MIN_GROUPS
    for section in (found, found["linear_probe"]):
        assert list(section["models"]) == ["pretrained", "majority", "word_tags"]
        assert list(section["comparisons"]) == ["majority", "word_tags"]
        for compared in section["comparisons"].values():
            assert compared["metric"] == "entity_f1"
            if compared["interval"] is None:
                assert compared["verdict"].startswith("not shown")
            else:
                low, high = compared["interval"]
                assert -1 <= low < high <= 1 and compared["verdict"] in ("yes", "no", NOT_SHOWN)
    ours = found["models"]["pretrained"]["runs"][0]
    assert ours["test"] == tuned[1].test and "predictions" not in out.read_text()
    majority_f1 = found["models"]["majority"]["summary"]["entity_f1"]
    assert majority_f1 == {"median": 0.0, "min": 0.0, "max": 0.0, "runs": 1}
    assert [run["seed"] for run in found["linear_probe"]["models"]["pretrained"]["runs"]] == [1, 2]


TRUTH = [
    ["B-PER", "I-PER", "O", "B-LOC"],
    ["O", "O"],
    ["B-LOC"],
    ["B-LOC", "B-PER", "B-LOC", "B-PER"],
    ["O"],
    ["B-PER", "O", "O", "B-LOC", "O", "B-LOC"],
]
GUESS = [
    ["B-PER", "I-PER", "O", "O"],  # 1 of 1 predicted right, of 2 true
    ["O", "O"],
    ["B-PER"],
    ["B-LOC", "B-PER", "B-LOC", "B-PER"],  # 4 of 4
    ["B-LOC"],
    ["B-PER", "O", "B-LOC", "O", "O", "O"],  # 1 of 2, of 3 true
]


def test_the_bootstrap_draws_sentence_counts_and_scores_entity_f1_anew_on_each_resample():
    task = task_description(problem="token_classification", labels=TAGS, tag_scheme="iob2", metrics=list(TAG_METRICS))
    truth = [[TAGS.index(tag) for tag in sentence] for sentence in TRUTH]
    runs = {"ours": [[[TAGS.index(tag) for tag in sentence] for sentence in GUESS]], "diverged": [None]}
    drawn_truth, drawn, score = PROBLEMS["token_classification"].resampled("entity_f1", truth, runs, task)
    assert len(drawn_truth) == len(TRUTH) and drawn["diverged"] == [None]
    [counts] = drawn["ours"]
    assert counts.shape == (len(TRUTH), 5)
    assert counts[0].tolist() == [1, 1, 2, 3, 4] and counts[3].tolist() == [4, 4, 4, 4, 4]
    rows = np.array([0, 0, 3, 5])
    resampled_truth, resampled_guess = [TRUTH[row] for row in rows], [GUESS[row] for row in rows]
    found = score(drawn_truth[rows], counts[rows])
    assert found == pytest.approx(f1_score(resampled_truth, resampled_guess))  # 2 * 7 / (8 + 11)
    assert found == pytest.approx(14 / 19)
    by_sentence = np.mean([f1_score([TRUTH[row]], [GUESS[row]]) for row in rows])  # (2/3 + 2/3 + 1 + 2/5) / 4
    assert abs(by_sentence - found) > 0.05  # the test tells pooled counts from an average of sentences' F1
    seqevals = {"entity_precision": precision_score, "entity_recall": recall_score, "token_accuracy": accuracy_score}
    for metric, seqeval in seqevals.items():
        *_, scored = PROBLEMS["token_classification"].resampled(metric, truth, runs, task)
        assert scored(drawn_truth[rows], counts[rows]) == pytest.approx(seqeval(resampled_truth, resampled_guess))
