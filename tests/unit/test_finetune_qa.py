"""Extractive question answering (problem: extractive_qa) end to end on a tiny saved BERT: a SQuAD v2.0 file prepared
by article, a bad file refused by file, article and question before any output, a fine-tuning run reproducible to the
byte whose predictions are answer texts and whose no-answer threshold is chosen on validation, one shape in every
training step, a question too long for a window refused by split and id before training, the sentence baseline, the
span probe, the summary, whose bootstrap draws articles, and the embedded cloze task."""

import json
from dataclasses import replace

import pytest
from finetune_data import probe_result, squad_articles, write_squad
from finetune_jobs import cpu_job, summarized
from helpers import save_tiny_model
from shape_log import changed_ops, training_step_shapes

from snakebert.errors import DataError
from snakebert.finetune.baselines import run_baselines
from snakebert.finetune.embedded import BLANK
from snakebert.finetune.folds import pooled_runs
from snakebert.finetune.frozen_states import STRENGTHS
from snakebert.finetune.job import FinetuneJob
from snakebert.finetune.linear_probe import probe_model
from snakebert.finetune.prepare import prepare_task, read_task_dir
from snakebert.finetune.problems import PROBLEMS
from snakebert.finetune.qa_windows import QAWindows
from snakebert.finetune.span_probe import NEGATIVES, train_positions
from snakebert.finetune.squad_metrics import QA_METRICS
from snakebert.finetune.train import build_trainer, finetune, load_model, load_tokenizer

ARTICLES = 12
SPLIT = {"validation_fraction": 0.25, "test_fraction": 0.25, "seed": 0, "folds": None}  # 6, 3 and 3 articles
RECIPE = {"learning_rate": 5e-3, "epochs": 2, "batch_size": 8, "max_length": 32, "warmup_ratio": 0.1,
          "weight_decay": 0.01}  # fmt: skip
MAX_LENGTH = RECIPE["max_length"]


def qa_task(path: str, **overrides) -> dict:
    """A `files` task with every schema default filled, as the workflow hands it over."""
    task = {"name": "qa", "type": "files", "format": "squad", "train": path, "validation": None, "test": None,
            "text_column": "text", "text_pair_column": None, "label_column": None, "group_column": None,
            "conll_columns": ["text", "label"], "tag_scheme": None, "allow_unanswerable": True,
            "problem": "extractive_qa", "metrics": None, "split": SPLIT, "recipe": {},
            "follow_symlinks": False}  # fmt: skip
    return {**task, **overrides}


@pytest.fixture(scope="module")
def prepared(tiny_data, tmp_path_factory):
    """The tiny model and the SQuAD v2.0 task prepared: 5 questions per article, one of them unanswerable."""
    root = tmp_path_factory.mktemp("qa")
    model = save_tiny_model(tiny_data.tokenizer, root / "model")
    path = write_squad(root / "train.json", squad_articles(ARTICLES))
    prepare_task(qa_task(str(path)), str(root / "qa"))
    return root, model, root / "qa"


def job(prepared, folder, task_dir=None, recipe=RECIPE) -> FinetuneJob:
    _, model, task = prepared
    return cpu_job(task_dir or task, model, folder, recipe)


@pytest.fixture(scope="module")
def tuned(prepared):
    """One fine-tuning run of the pretrained model, seed 1."""
    root = prepared[0]
    out = root / "run-a" / "result.json"
    return out, finetune(job(prepared, root / "run-a"), str(out))


# 1. Preparing


def test_a_squad_file_is_prepared_by_article_with_its_questions_counted(prepared):
    task, splits = read_task_dir(str(prepared[2]))
    assert task.problem == "extractive_qa" and task.allow_unanswerable is True and task.labels is None
    assert task.metrics == tuple(QA_METRICS) and task.main_metric == "squad_f1"
    assert task.text_pair is True and task.carved == ("test", "validation")
    groups = {split: set(table.column("group").to_pylist()) for split, table in splits.items()}
    assert [len(found) for found in groups.values()] == [6, 3, 3]
    assert not groups["train"] & groups["validation"] and not groups["train"] & groups["test"]
    for split, table in splits.items():
        counts = task.splits[split]
        assert counts["examples"] == counts["questions"] == len(table) == 5 * len(groups[split])
        assert counts["unanswerable"] == len(groups[split]) and counts["groups"] == len(groups[split])
        for context, answers in zip(table.column("text_pair").to_pylist(), table.column("label").to_pylist(),
                                    strict=True):  # fmt: skip
            assert all(context[gold["start"] :].startswith(gold["text"]) for gold in answers)


def test_a_bad_squad_file_is_named_by_file_article_and_question_and_leaves_no_output(tmp_path):
    data = squad_articles(4)
    data["data"][2]["paragraphs"][0]["qas"][1]["answers"][0]["answer_start"] += 1
    path = write_squad(tmp_path / "train.json", data)
    out = tmp_path / "qa"
    with pytest.raises(DataError) as error:
        prepare_task(qa_task(str(path)), str(out))
    assert str(error.value).startswith(f"{path}: article 2, paragraph 0, question 1 (id 'a2q1')")
    assert "met the" not in str(error.value)  # no context quoted
    assert not out.exists() and not list(tmp_path.glob(".qa*"))


def test_an_unanswerable_question_is_refused_in_a_v1_task(tmp_path):
    data = squad_articles(4)
    for article in data["data"]:
        for question in article["paragraphs"][0]["qas"]:
            del question["is_impossible"]  # as a v1.1 file has it: its unanswerable questions have no answer
    path = write_squad(tmp_path / "train.json", data)
    with pytest.raises(DataError, match=r"article 0, paragraph 0, question 4 \(id 'a0q4'\) has no answer"):
        prepare_task(qa_task(str(path), allow_unanswerable=False), str(tmp_path / "qa"))
    assert not (tmp_path / "qa").exists()


def test_folds_keep_articles_whole_and_pooled_runs_score_answer_texts(tmp_path):
    path = write_squad(tmp_path / "train.json", squad_articles(ARTICLES))
    folded = {"validation_fraction": 0.25, "test_fraction": 0.0, "seed": 0, "folds": 3}
    described = prepare_task(qa_task(str(path), split=folded), str(tmp_path / "qa"))
    tested = [read_task_dir(str(tmp_path / "qa" / f"fold-{fold}"))[1]["test"] for fold in (1, 2, 3)]
    articles = [set(table.column("group").to_pylist()) for table in tested]
    assert sum(map(len, articles)) == len(set.union(*articles)) == ARTICLES  # each article tested once, whole
    assert described.splits["test"]["questions"] == 5 * ARTICLES
    truth = [answers for table in tested for answers in table.column("label").to_pylist()]
    runs = [probe_result(fold=fold, no_answer_threshold=0.5,
                         predictions=[gold[0]["text"] if gold else "" for gold in table.column("label").to_pylist()])
            for fold, table in enumerate(tested, 1)]  # fmt: skip
    [(pooled, predicted)] = pooled_runs(runs, replace(described, task="qa"), truth)
    assert pooled.test == {"squad_f1": 1.0, "exact_match": 1.0} and len(predicted) == len(truth)
    assert [fold.no_answer_threshold for fold in pooled.folds] == [0.5] * 3


# 2. A fine-tuning run


def test_every_question_answering_step_has_the_same_shapes(prepared, tmp_path):
    """One graph on Gaudi: windows padded to max_length, a start and an end position per window, whole batches."""
    run = job(prepared, tmp_path)
    task, tables = read_task_dir(run.task_dir)
    tokenizer = load_tokenizer(run.source, run.name)
    splits = {split: QAWindows(table, tokenizer, MAX_LENGTH, 8) for split, table in tables.items()}
    assert splits["train"].count > len(tables["train"])  # contexts longer than a window: else no window is cut
    trainer = build_trainer(run, task, load_model(run, task), splits, tmp_path / "run")
    batches = list(trainer.get_train_dataloader())
    lengths = {int(batch["attention_mask"].sum()) for batch in batches}
    shapes = {tuple(tuple(batch[name].shape) for name in ("input_ids", "start_positions", "end_positions"))
              for batch in batches}  # fmt: skip
    assert len(lengths) > 1 and shapes == {((RECIPE["batch_size"], MAX_LENGTH), (8,), (8,))}
    assert not changed_ops([training_step_shapes(trainer, batch) for batch in batches[:3]])


def test_a_run_answers_with_texts_of_the_context_at_a_threshold_chosen_on_validation_and_again_to_the_byte(
    prepared, tuned
):
    out, result = tuned
    task, splits = read_task_dir(str(prepared[2]))
    for split, scores in (("validation", result.validation), ("test", result.test)):
        assert list(scores) == list(QA_METRICS)
        assert all(isinstance(value, float) and 0 <= value <= 1 for value in scores.values())
        assert result.classes_predicted[split] is None
    table = splits["test"]
    assert len(result.predictions) == len(table) == task.splits["test"]["questions"]
    contexts = table.column("text_pair").to_pylist()
    assert all(isinstance(answer, str) and answer in context
               for answer, context in zip(result.predictions, contexts, strict=True))  # fmt: skip
    assert isinstance(result.no_answer_threshold, float)
    scored = PROBLEMS["extractive_qa"].scores(list(QA_METRICS), table.column("label").to_pylist(),
                                              result.predictions, task)  # fmt: skip
    assert scored == result.test  # the test scores are the predictions'
    assert result.diverged is None and 1 <= result.best_epoch <= RECIPE["epochs"]
    again = prepared[0] / "run-b" / "result.json"
    finetune(job(prepared, prepared[0] / "run-b"), str(again))
    assert again.read_bytes() == out.read_bytes()


def test_a_v1_run_records_no_threshold(prepared, tmp_path):
    """The same questions less the unanswerable ones, read as SQuAD v1.1: every question answered by a span."""
    data = squad_articles(ARTICLES, unanswerable=0)
    path = write_squad(tmp_path / "train.json", data)
    prepare_task(qa_task(str(path), allow_unanswerable=False), str(tmp_path / "qa"))
    run = job(prepared, tmp_path, task_dir=str(tmp_path / "qa"), recipe={**RECIPE, "epochs": 1})
    result = finetune(run, str(tmp_path / "result.json"))
    assert result.no_answer_threshold is None and all(result.predictions)


def test_a_question_too_long_for_a_window_is_refused_by_split_and_id_before_training(prepared, tmp_path):
    data = squad_articles(ARTICLES)
    data["data"][5]["paragraphs"][0]["qas"][2]["question"] = "who met " + "the sea " * MAX_LENGTH + "?"
    path = write_squad(tmp_path / "train.json", data)
    prepare_task(qa_task(str(path)), str(tmp_path / "qa"))
    run = job(prepared, tmp_path, task_dir=str(tmp_path / "qa"))
    said = r"finetune task 'qa', \w+ split of .*: row \d+ \(counted from 0\) \(id 'a5q2'\): its question is"
    with pytest.raises(DataError, match=said):
        finetune(run, str(tmp_path / "result.json"))
    assert not (tmp_path / "result.json").exists() and not list((tmp_path / "checkpoints").glob("*"))


# 3. The span probe


@pytest.fixture(scope="module")
def probed(prepared):
    root, model, task = prepared
    outs = [root / f"probe-{seed}.json" for seed in (1, 2)]
    probe_model(str(task), "pretrained", "pretrained", model, MAX_LENGTH, 8, list(map(str, outs)))
    return outs


def test_the_span_probe_trains_on_each_windows_start_end_first_and_a_few_drawn_context_positions(prepared):
    task, tables = read_task_dir(str(prepared[2]))
    split = QAWindows(tables["train"], load_tokenizer(prepared[1], "pretrained"), MAX_LENGTH)
    found = train_positions(split)
    assert len(found) == split.count  # the same again: drawn from each window's index alone
    assert all((first == again).all() for first, again in zip(found, train_positions(split), strict=True))
    for window, positions in enumerate(found):
        start, end = split.labels[window].tolist()
        context = {position for position, span in enumerate(split.offsets[window]) if span is not None}
        assert {0, start, end} <= set(positions.tolist()) and set(positions.tolist()) - {0, start, end} <= context
        assert len(positions) <= 3 + NEGATIVES and list(positions) == sorted(set(positions.tolist()))


def test_the_span_probe_answers_with_texts_of_the_context_and_writes_each_seeds_result(prepared, probed):
    task, splits = read_task_dir(str(prepared[2]))
    found = [json.loads(path.read_text()) for path in probed]
    assert [run["seed"] for run in found] == [1, 2]
    contexts = splits["test"].column("text_pair").to_pylist()
    for run in found:
        assert run["protocol"] == "linear_probe" and run["strength"] in STRENGTHS
        assert isinstance(run["no_answer_threshold"], float)
        for split in ("validation", "test"):
            assert list(run[split]) == list(QA_METRICS) and all(0 <= value <= 1 for value in run[split].values())
        assert all(answer in context for answer, context in zip(run["predictions"], contexts, strict=True))
    assert found[0]["test"] == found[1]["test"] and found[0]["predictions"] == found[1]["predictions"]


# 4. The baseline and the summary


def test_the_summary_holds_the_runs_and_the_sentence_baseline_with_an_interval_over_articles(prepared, tuned, probed):
    root, _, task_dir = prepared
    baselines = run_baselines(str(task_dir), str(root / "baselines.json"))
    assert set(baselines) == {"squad_sentence"}
    task, splits = read_task_dir(str(task_dir))
    contexts = splits["test"].column("text_pair").to_pylist()
    answers = baselines["squad_sentence"].predictions
    assert all(answer == "" or answer.endswith(".") and answer in context
               for answer, context in zip(answers, contexts, strict=True))  # fmt: skip
    out = root / "metrics.json"
    found = summarized(str(task_dir / "task.json"), [str(tuned[0])], list(map(str, probed)), [5e-3],
                           [str(root / "baselines.json")], str(out))  # fmt: skip
    assert json.loads(out.read_text()) == json.loads(json.dumps(found))
    assert found["problem"] == "extractive_qa" and found["main_metric"] == "squad_f1"
    assert found["bootstrap"]["groups"] == 3  # the test split's articles
    assert list(found["models"]) == ["pretrained", "squad_sentence"]
    compared = found["comparisons"]["squad_sentence"]
    assert compared["metric"] == "squad_f1" and compared["verdict"].startswith("not shown: 3 test groups")
    ours = found["models"]["pretrained"]["runs"][0]
    assert ours["test"] == tuned[1].test and ours["no_answer_threshold"] == tuned[1].no_answer_threshold
    assert found["linear_probe"]["models"]["pretrained"]["runs"][0]["no_answer_threshold"] is not None
    assert list(found["linear_probe"]["models"]) == ["pretrained", "squad_sentence"]


# 5. The embedded cloze task


def test_the_embedded_cloze_task_blanks_a_name_that_its_context_holds(tmp_path):
    task = {"name": "cloze", "type": "embedded", "task": "sotu-cloze", "questions_per_speech": 1, "recipe": {},
            "split": {"validation_fraction": 0.15, "test_fraction": 0.15, "seed": 0, "folds": None}}  # fmt: skip
    described = prepare_task(task, str(tmp_path / "cloze"))
    assert described.problem == "extractive_qa" and described.allow_unanswerable is False
    _, splits = read_task_dir(str(tmp_path / "cloze"))
    groups = [set(table.column("group").to_pylist()) for table in splits.values()]
    assert sum(map(len, groups)) == sum(split["questions"] for split in described.splits.values()) > 240
    assert not groups[0] & groups[1] and not groups[0] & groups[2] and not groups[1] & groups[2]
    for row in splits["train"].to_pylist():
        assert row["text"].count(BLANK) == 1 and row["label"]
        assert all(row["text_pair"][gold["start"] :].startswith(gold["text"]) for gold in row["label"])
        assert all(gold["text"][0].isupper() for gold in row["label"])
