"""Small labelled data sets for the fine-tuning tests: sentence pairs with classes, single texts with a number,
sentences of tagged words and SQuAD questions, written as the files a `files` task reads, and local folders laid out
like GLUE's and CoNLL-2003's on the Hub; a prepared task's description, a fine-tuning run's and a linear probe's
result; and a task's results as summarize_finetune writes them."""

import json
from pathlib import Path

from tiny_corpus import DOCS

from snakebert.files.json_views import built
from snakebert.finetune.interval import NOT_SHOWN
from snakebert.finetune.probe_file import ProbeResult
from snakebert.finetune.run_file import RunResult
from snakebert.finetune.task_file import TaskFile

WORDS = [word.strip(".,;:") for doc in DOCS for word in doc.lower().split()]


PARTY = {"task": "party", "type": "embedded", "description": "the party of a passage of a speech",
         "problem": "classification", "labels": ["Democratic", "Republican"], "metrics": ["accuracy", "macro_f1"],
         "main_metric": "accuracy", "text_pair": False, "tag_scheme": None, "allow_unanswerable": None,
         "reported_split": "test", "carved": ["test", "validation"], "folds": None, "fold": None,
         "splits": {}}  # fmt: skip


def task_description(**values) -> TaskFile:
    """A prepared task's description (task.json's view) as the jobs read it: an embedded classification task's, but
    for `values` (lists as JSON holds them; `main_metric`, where not given, the first of `metrics`)."""
    given = {**PARTY, **values}
    return built(TaskFile, {**given, "main_metric": values.get("main_metric", given["metrics"][0])})


RUN = {"task": "party", "model": "pretrained", "kind": "pretrained", "source": "results/model", "seed": 1, "fold": None,
       "recipe": {"learning_rate": 3e-3}, "search": True, "best_epoch": 1.0, "validation": {}, "test": {},
       "classes_predicted": {"validation": 2, "test": 2}, "predictions": [], "diverged": None,
       "machine": {"cpu": "Some CPU", "cpu_capability": "AVX512", "backend": "cpu", "accelerator": None}}  # fmt: skip


def run_result(**values) -> RunResult:
    """A fine-tuning run's result (its file's view) as train.py writes it: the pretrained model's first run of the
    party task's rate search, but for `values`."""
    return built(RunResult, {**RUN, **values})


PROBE = {"task": "party", "model": "pretrained", "kind": "pretrained", "source": "results/model", "seed": 1,
         "fold": None, "protocol": "linear_probe", "validation": {}, "test": {}, "predictions": [], "strength": 1.0,
         "machine": RUN["machine"]}  # fmt: skip


def probe_result(**values) -> ProbeResult:
    """A linear probe's result (its file's view) as linear_probe.py writes it: the pretrained model's first seed on the
    party task, but for `values`."""
    return built(ProbeResult, {**PROBE, **values})


def pair_rows(count: int) -> list[dict]:
    """Pairs whose label says whether the second text starts with the first text's words ("same" / "different")."""
    rows = []
    for index in range(count):
        first = " ".join(WORDS[index % 40 : index % 40 + 6])
        same = index % 3 != 0
        second = first if same else " ".join(WORDS[(index + 17) % 40 : (index + 17) % 40 + 6])
        rows.append({"first": first, "second": second, "label": "same" if same else "different", "doc": index // 4})
    return rows


def number_rows(count: int) -> list[dict]:
    """Texts of 2 to 9 words, labelled with their word count (a number a model can learn)."""
    return [
        {"text": " ".join(WORDS[index : index + 2 + index % 8]), "score": 2.0 + index % 8} for index in range(count)
    ]


NAMES = {"committee", "met", "budget", "coming", "year", "sea", "engine", "runs", "library", "opens", "mountains"}


def tagged_rows(count: int) -> list[dict]:
    """Sentences of 4 to 12 words, each run of NAMES words tagged B-NAME, I-NAME (IOB2; every document but one holds
    both tags), 4 sentences per document."""
    rows = []
    for index in range(count):
        words = WORDS[(index * 7) % 60 : (index * 7) % 60 + 4 + index % 9]
        tags = []
        for word in words:
            named = word in NAMES
            tags.append(("I-NAME" if tags and tags[-1] != "O" else "B-NAME") if named else "O")
        rows.append({"tokens": words, "tags": tags, "doc": index // 4})
    return rows


WHO = ["committee", "engine", "bakers", "village", "library", "river"]
WHOM = ["budget", "sea", "mountains", "ovens", "dough", "grain", "books"]


def squad_articles(articles: int, sentences: int = 4, unanswerable: int = 1) -> dict:
    """A SQuAD v2.0 file's data: per article one paragraph of `sentences` sentences "the WHO met the WHOM on tuesday .",
    a question per sentence ("who met the WHOM ?", answered by its WHO), and `unanswerable` questions about a WHOM that
    the paragraph does not hold (none: a v1.1 file, without is_impossible keys); the same every time."""
    data = []
    for article in range(articles):
        who = [WHO[(article + index) % len(WHO)] for index in range(sentences)]
        whom = [WHOM[(article * 3 + index) % len(WHOM)] for index in range(sentences + unanswerable)]
        context, questions = "", []
        for index in range(sentences):
            start = len(context) + len("the ")
            context += f"the {who[index]} met the {whom[index]} on tuesday . "
            answer = {"text": who[index], "answer_start": start}
            questions.append({"id": f"a{article}q{index}", "question": f"who met the {whom[index]} ?",
                              "answers": [answer], **({"is_impossible": False} if unanswerable else {})})  # fmt: skip
        for index in range(sentences, sentences + unanswerable):
            questions.append({"id": f"a{article}q{index}", "question": f"who met the {whom[index]} ?", "answers": [],
                              "is_impossible": True})  # fmt: skip
        data.append({"title": f"article {article}", "paragraphs": [{"context": context.strip(), "qas": questions}]})
    return {"version": "v2.0" if unanswerable else "1.1", "data": data}


def write_squad(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_conll(path: Path, rows: list[dict]) -> Path:
    """`rows` as a CoNLL file (word and tag per line, a blank line between sentences), each document opened by a
    -DOCSTART- line."""
    lines, document = [], None
    for row in rows:
        if row["doc"] != document:
            lines += ["-DOCSTART- O", ""]
            document = row["doc"]
        lines += [f"{word} {tag}" for word, tag in zip(row["tokens"], row["tags"], strict=True)] + [""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def write_conll2003_folder(folder: Path, rows: int = 48) -> Path:
    """`folder` as the Hub's CoNLL-2003 lays it out: a parquet file per split with `tokens` and `ner_tags` (a list of
    classes, their names kept in the files)."""
    import datasets

    names = ["O", "B-PER", "I-PER", "B-NAME", "I-NAME"]
    features = datasets.Features({"id": datasets.Value("string"), "tokens": datasets.Sequence(datasets.Value("string")),
                                  "ner_tags": datasets.Sequence(datasets.ClassLabel(names=names))})  # fmt: skip
    for split, count in (("train", rows), ("validation", rows // 2), ("test", rows // 2)):
        found = tagged_rows(count)
        table = {"id": [str(index) for index in range(count)], "tokens": [row["tokens"] for row in found],
                 "ner_tags": [[names.index(tag) for tag in row["tags"]] for row in found]}  # fmt: skip
        folder.mkdir(parents=True, exist_ok=True)
        datasets.Dataset.from_dict(table, features=features).to_parquet(str(folder / f"{split}.parquet"))
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n"
        + "".join(f"  - split: {split}\n    path: {split}.parquet\n" for split in ("train", "validation", "test"))
        + "---\n"
    )
    return folder


def write_squad_folder(folder: Path, articles: int = 12) -> Path:
    """`folder` as the Hub's squad_v2 lays it out: a parquet file per split (train, validation) of rows with `id`,
    `title`, `context`, `question` and `answers` ({text: [...], answer_start: [...]}), made by datasets with the Hub's
    features from squad_articles' questions."""
    import datasets

    answers = datasets.Sequence({"text": datasets.Value("string"), "answer_start": datasets.Value("int32")})
    features = datasets.Features({name: datasets.Value("string") for name in ("id", "title", "context", "question")}
                                 | {"answers": answers})  # fmt: skip
    for split, count in (("train", articles), ("validation", articles // 2)):
        rows = {name: [] for name in features}
        for article in squad_articles(count)["data"]:
            paragraph = article["paragraphs"][0]
            for question in paragraph["qas"]:
                golds = question["answers"]
                found = {"id": f"{split}-{question['id']}", "title": article["title"], "context": paragraph["context"],
                         "question": question["question"], "answers": {"text": [gold["text"] for gold in golds],
                         "answer_start": [gold["answer_start"] for gold in golds]}}  # fmt: skip
                for name, value in found.items():
                    rows[name].append(value)
        folder.mkdir(parents=True, exist_ok=True)
        datasets.Dataset.from_dict(rows, features=features).to_parquet(str(folder / f"{split}.parquet"))
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n"
        + "".join(f"  - split: {split}\n    path: {split}.parquet\n" for split in ("train", "validation"))
        + "---\n"
    )
    return folder


def write_csv(path: Path, rows: list[dict]) -> Path:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_glue_folder(folder: Path, config: str = "mrpc", rows: int = 48) -> Path:
    """`folder` as the Hub's GLUE repository lays out one task: `{config}/{split}-00000-of-00001.parquet` with
    ClassLabel names kept in the files, and a README whose `configs` map the config to its files."""
    import datasets

    features = datasets.Features(
        {
            "sentence1": datasets.Value("string"),
            "sentence2": datasets.Value("string"),
            "label": datasets.ClassLabel(names=["not_equivalent", "equivalent"]),
            "idx": datasets.Value("int32"),
        }
    )
    for split, count in (("train", rows), ("validation", rows // 2), ("test", rows // 2)):
        found = pair_rows(count)
        table = {
            "sentence1": [row["first"] for row in found],
            "sentence2": [row["second"] for row in found],
            "label": [int(row["label"] == "same") if split != "test" else -1 for row in found],
            "idx": list(range(count)),
        }
        (folder / config).mkdir(parents=True, exist_ok=True)
        datasets.Dataset.from_dict(table, features=features).to_parquet(
            str(folder / config / f"{split}-00000-of-00001.parquet")
        )
    (folder / "README.md").write_text(
        "---\nconfigs:\n"
        f"- config_name: {config}\n  data_files:\n"
        + "".join(f"  - split: {split}\n    path: {config}/{split}-*\n" for split in ("train", "validation", "test"))
        + "---\n"
    )
    return folder


def summary(median: float, low: float, high: float, runs: int) -> dict:
    return {"median": median, "min": low, "max": high, "runs": runs}


def metrics_json(name: str, problem: str, metrics: list[str], medians: list[float]) -> dict:
    """A fine-tuning metrics file of the format summarize_finetune writes (three seeds, every kind of model)."""

    def model(kind: str, scale: float, path: str | None = "results/model") -> dict:
        seeds = [None] if kind == "baseline" else [1, 2, 3]
        spread = 0 if kind == "baseline" else 0.02
        scores = {metric: median * scale for metric, median in zip(metrics, medians, strict=True)}
        rate = {"learning_rate": {"pretrained": 3e-3, "random_init": 1e-2}.get(kind, 1e-3)} if seeds[0] else {}
        return {
            "kind": kind,
            "model": path,
            **rate,
            "runs": [  # a baseline's without a best epoch
                {"seed": seed, "validation": scores, "test": scores, **({"best_epoch": 2.0} if seed else {})}
                for seed in seeds
            ],
            "summary": {
                metric: summary(value, value - spread, value + spread, len(seeds)) for metric, value in scores.items()
            },
            "one_class_runs": None,
        }

    split = {"examples": 40, "groups": 7, "class_counts": None}
    return {
        "task": name,
        "type": "embedded",
        "description": f"the {name} of a passage of a speech",
        "problem": problem,
        "labels": ["Democratic", "Republican"] if problem == "classification" else None,
        "main_metric": metrics[-1],
        "metrics": metrics,
        "reported_split": "test",
        "splits": {"train": {**split, "examples": 120}, "validation": split, "test": split},
        "folds": None,
        "seeds": [1, 2, 3],
        "learning_rates": {
            "grid": [1e-3, 3e-3, 1e-2],
            "search_seeds": 1,
            "chosen_on": "validation",
            "metric": metrics[-1],
        },  # fmt: skip
        "models": {
            "pretrained": model("pretrained", 1.0),
            "random": model("random_init", 0.8),
            "bert-base": model("reference", 1.1, "bert-base-uncased"),
            "majority": model("baseline", 0.5, None),
        },
        "machines": [{"cpu": "Some CPU", "cpu_capability": "AVX2", "backend": "cpu", "accelerator": None}],
        "bootstrap": {"level": 0.95, "resamples": 1000, "groups": 5},
        "comparisons": {
            "random": {"metric": metrics[-1], "difference": 0.08, "interval": [-0.02, 0.15], "verdict": NOT_SHOWN},
            "bert-base": {"metric": metrics[-1], "difference": -0.1, "interval": [-0.2, -0.01], "verdict": "no"},
            "majority": {"metric": metrics[-1], "difference": 0.3, "interval": None, "verdict": NOT_SHOWN},
        },
        "pretraining_gain": {
            "metric": metrics[-1],
            "median": 0.07,
            "min": 0.03,
            "max": 0.1,
            "runs": 3,
            "interval": [-0.02, 0.15],
            "verdict": NOT_SHOWN,
        },  # fmt: skip
        "adaptation_gain": None,
        "linear_probe": {
            "models": {"pretrained": model("pretrained", 1.2), "random": model("random_init", 0.9)},
            "comparisons": {},
            "adaptation_gain": None,
            "pretraining_gain": {
                "metric": metrics[-1],
                "median": 0.18,
                "min": 0.18,
                "max": 0.18,
                "runs": 3,
                "interval": [0.05, 0.3],
                "verdict": "yes",
            },  # fmt: skip
        },
    }
