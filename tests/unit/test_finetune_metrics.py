"""The task metrics against scikit-learn's and scipy's own calls on fixed inputs, the baselines, and the summary's
median, spread and pretraining gain, and the intervals and verdicts of its comparisons."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from finetune_data import probe_result, run_result
from finetune_jobs import summarized
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

from snakebert.errors import DataError
from snakebert.files.json_views import as_json
from snakebert.finetune.baselines import majority, run_baselines
from snakebert.finetune.metrics import scores, spread
from snakebert.finetune.metrics_file import task_metrics
from snakebert.finetune.prepare import prepare_task, read_task_dir
from snakebert.finetune.summary import summarize_task
from snakebert.report.downstream import task_rows

MACHINE = {"cpu": "Some CPU", "cpu_capability": "AVX512", "backend": "cpu", "accelerator": None}
TRUTH = np.array([0, 1, 1, 0, 1, 1, 0, 0, 1, 1])
GUESS = np.array([0, 1, 0, 0, 1, 1, 1, 0, 1, 0])


def sklearns(truth, guess, classes: int) -> dict[str, float | None]:
    """scikit-learn's scores, undefined (None) where it divides by zero: zero_division=np.nan for F1, and Matthews'
    correlation where all truth or all predictions are one class (scikit-learn says 0 there)."""
    labels = list(range(classes))
    found = {
        "accuracy": accuracy_score(truth, guess),
        "macro_f1": f1_score(truth, guess, average="macro", labels=labels, zero_division=np.nan),
        "matthews": matthews_corrcoef(truth, guess) if len(set(truth)) > 1 and len(set(guess)) > 1 else np.nan,
    }
    found |= {"f1": f1_score(truth, guess, zero_division=np.nan)} if classes == 2 else {}
    return {name: None if np.isnan(value) else value for name, value in found.items()}


def test_class_metrics_are_scikit_learns():
    found = scores(["accuracy", "macro_f1", "f1", "matthews"], TRUTH, GUESS, 2)
    assert found == pytest.approx(sklearns(TRUTH, GUESS, 2), rel=1e-12, abs=1e-15)
    assert found["accuracy"] == 0.7 and found["f1"] == pytest.approx(8 / 11)  # precision 4/5, recall 4/6


def test_class_metrics_are_scikit_learns_on_many_draws_with_classes_missing_and_one_class_answers():
    draws = np.random.default_rng(0)
    for case in range(300):
        classes, size = int(draws.integers(2, 5)), int(draws.integers(1, 40))
        truth = draws.integers(0, classes, size)
        guess = np.full(size, case % classes) if case % 7 == 0 else draws.integers(0, classes - case % 2, size)
        names = ["accuracy", "macro_f1", "matthews", *(["f1"] if classes == 2 else [])]
        assert scores(names, truth, guess, classes) == pytest.approx(sklearns(truth, guess, classes), rel=1e-12,
                                                                     abs=1e-15), (truth, guess)  # fmt: skip


def test_macro_f1_counts_a_class_never_predicted_as_zero():
    assert scores(["macro_f1"], TRUTH, np.ones(10, dtype=int), 2)["macro_f1"] == pytest.approx(0.75 / 2)


def test_an_undefined_f1_or_matthews_correlation_is_none_not_zero():
    """One class in truth and predictions alike: the second class's F1 and Matthews' correlation divide by zero."""
    truth = np.zeros(6, dtype=int)
    found = scores(["accuracy", "macro_f1", "f1", "matthews"], truth, truth, 2)
    assert found == {"accuracy": 1.0, "macro_f1": 1.0, "f1": None, "matthews": None}
    assert found == sklearns(truth, truth, 2)
    assert scores(["matthews"], TRUTH, np.ones(10, dtype=int), 2) == {"matthews": None}  # a collapsed classifier


def test_macro_f1_leaves_out_a_class_absent_from_truth_and_predictions_as_scikit_learn_does():
    truth, guess = np.array([0, 0, 2, 2, 0]), np.array([0, 2, 2, 2, 0])  # class 1 of 3 nowhere
    found = scores(["macro_f1"], truth, guess, 3)["macro_f1"]
    assert found == pytest.approx(f1_score(truth, guess, average="macro"))  # the labels present: 0 and 2
    assert found == pytest.approx(sklearns(truth, guess, 3)["macro_f1"]) == 0.8  # not 1.6 / 3, class 1 counted 0


def test_a_correlation_of_one_example_is_undefined():
    assert scores(["pearson", "spearman"], np.array([1.0]), np.array([2.0]), 0) == {"pearson": None, "spearman": None}


def test_correlations_are_scipys_and_undefined_for_constant_predictions():
    truth, guess = np.array([1.0, 2.5, 3.0, 4.5, 5.0]), np.array([1.2, 2.0, 3.5, 4.0, 5.5])
    found = scores(["pearson", "spearman"], truth, guess, 0)
    assert found == {"pearson": pearsonr(truth, guess).statistic, "spearman": spearmanr(truth, guess).statistic}
    with pytest.warns(Warning):
        assert scores(["pearson"], truth, np.full(5, 3.0), 0) == {"pearson": None}


def test_spread_is_median_min_and_max_of_the_defined_values():
    assert spread([0.5, None, 0.7, 0.6]) == {"median": 0.6, "min": 0.5, "max": 0.7, "runs": 3}
    assert spread([None]) is None


@pytest.fixture(scope="module")
def party(tmp_path_factory):
    folder = tmp_path_factory.mktemp("party") / "data"
    task = {"name": "party", "type": "embedded", "task": "sotu-party", "passage_words": 100, "passages_per_speech": 8,
            "split": {"validation_fraction": 0.15, "test_fraction": 0.15, "seed": 0, "folds": None},
            "recipe": {}}  # fmt: skip
    prepare_task(task, str(folder))
    return folder


def test_the_baselines_score_the_majority_class_and_tfidf(party, tmp_path):
    found = run_baselines(str(party), str(tmp_path / "baselines.json"))
    test_counts = [96, 120]  # Democratic, Republican passages of the test speeches
    assert found["majority"].test["accuracy"] == pytest.approx(max(test_counts) / sum(test_counts))
    assert found["majority"].test["macro_f1"] == pytest.approx(f1_score([0] * 96 + [1] * 120, [1] * 216,
                                                                           average="macro"))  # fmt: skip
    assert found["tfidf"].strength in (0.1, 1.0, 10.0, 100.0)
    assert found["tfidf"].test["macro_f1"] > found["majority"].test["macro_f1"]
    assert run_baselines(str(party), str(tmp_path / "again.json")) == found


def rows_of(found: dict, description: str) -> dict[str, str]:
    """The report's rows of the results `found` (their JSON), under another description."""
    return dict(task_rows(task_metrics(**{**found, "description": description})))


def write_runs(folder, predictions: dict[str, list], values: dict[str, list[float]], rate=3e-3, search=True,
               test=None, first_seed=1) -> list[str]:  # fmt: skip
    """Fine-tuning results of each model, one per seed: `values` its scores (on test too, unless `test` gives those),
    `predictions` its test predictions; at `rate`, a run of the learning-rate search or a chosen one."""

    kinds = {"pretrained": "pretrained", "random": "random_init"}
    paths = []
    for name, scored_by_seed in values.items():
        for seed, value in reversed(list(enumerate(scored_by_seed, first_seed))):  # the summary sorts them by seed
            path = folder / f"{name}-{rate}-{seed}.json"
            scored = {"macro_f1": value, "accuracy": value}
            tested = scored if test is None else {"macro_f1": test, "accuracy": test}
            run = run_result(model=name, kind=kinds[name], seed=seed, recipe={"learning_rate": rate}, search=search,
                             validation=scored, test=tested, predictions=predictions[name],
                             machine={**MACHINE, "cpu_capability": "AVX2" if name == "random" else "AVX512"},
                             classes_predicted={"validation": 2, "test": 1 if value == 0.5 else 2})  # fmt: skip
            path.write_text(json.dumps(as_json(run)))
            paths.append(str(path))
    return paths


def test_the_summary_sets_each_model_beside_the_baselines_with_the_gain_by_seed(party, tmp_path):
    truth = read_task_dir(str(party))[1]["test"].column("label").to_pylist()
    predictions = {"pretrained": truth, "random": [0] * len(truth)}  # every example right; one class for all
    runs = write_runs(tmp_path, predictions, {"pretrained": [0.6, 0.7, 0.5], "random": [0.5, 0.5, 0.6]})
    baselines = tmp_path / "baselines.json"
    run_baselines(str(party), str(baselines))
    found = summarized(str(party / "task.json"), runs, [], [3e-3], [str(baselines)], str(tmp_path / "metrics.json"))
    assert list(found["models"]) == ["pretrained", "random", "majority", "tfidf"]
    assert [found["models"][name]["one_class_runs"] for name in ("pretrained", "random", "tfidf")] == [1, 2, None]
    assert found["models"]["pretrained"]["summary"]["macro_f1"] == {"median": 0.6, "min": 0.5, "max": 0.7, "runs": 3}
    assert [run["seed"] for run in found["models"]["random"]["runs"]] == [1, 2, 3]
    gain = found["pretraining_gain"]
    assert gain["metric"] == "macro_f1" and gain["runs"] == 3
    assert [gain[key] for key in ("median", "min", "max")] == pytest.approx([0.1, -0.1, 0.2])
    assert found["seeds"] == [1, 2, 3] and found["splits"]["test"]["class_counts"] == {"Democratic": 96,
                                                                                         "Republican": 120}  # fmt: skip
    assert found["bootstrap"] == {"level": 0.95, "resamples": 1000, "groups": found["splits"]["test"]["groups"]}
    assert list(found["comparisons"]) == ["random", "majority", "tfidf"]
    random = found["comparisons"]["random"]
    assert random["verdict"] == "yes" and 0 < random["interval"][0] <= random["interval"][1] < 1
    assert gain["interval"] == random["interval"] and gain["verdict"] == "yes"  # the intervals, not the seeds' range
    assert random["difference"] == pytest.approx(0.1)  # the medians' difference, as the table shows them
    assert "predictions" not in (tmp_path / "metrics.json").read_text()  # the runs' files keep them
    assert found["machines"] == [MACHINE, {**MACHINE, "cpu_capability": "AVX2"}]  # each machine once, as they come
    rows = rows_of(found, "the party")
    assert rows["measured on"] == "Some CPU (AVX512); Some CPU (AVX2)"
    assert rows["did pretraining pay? (fine-tuned)"].startswith("yes: pretrained minus random init, macro_f1 +0.100")
    assert found["linear_probe"] is None and "did pretraining pay? (linear probe)" not in rows
    assert rows["pretrained against tfidf"].startswith("yes: macro_f1 ")


def test_the_verdict_is_no_when_the_interval_lies_below_zero_and_the_summary_is_byte_identical_again(party, tmp_path):
    truth = read_task_dir(str(party))[1]["test"].column("label").to_pylist()
    predictions = {"pretrained": [0] * len(truth), "random": truth}
    runs = write_runs(tmp_path, predictions, {"pretrained": [0.5, 0.5], "random": [0.6, 0.7]})
    baselines = tmp_path / "baselines.json"
    run_baselines(str(party), str(baselines))
    found = summarized(str(party / "task.json"), runs, [], [3e-3], [str(baselines)], str(tmp_path / "metrics.json"))
    assert found["pretraining_gain"]["verdict"] == "no" and found["pretraining_gain"]["interval"][1] < 0
    summarized(str(party / "task.json"), runs, [], [3e-3], [str(baselines)], str(tmp_path / "again.json"))
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "metrics.json").read_bytes()


GRID = [1e-3, 3e-3]


def searched(folder, predictions, test_scores: tuple[float, float]) -> list[str]:
    """A grid of two rates searched with seed 1 (validation: pretrained 0.6 then 0.8, random 0.7 then 0.5, the test
    scores given), then seeds 2 and 3 at each model's chosen rate."""
    folder.mkdir()
    runs = []
    for rate, validation, test in ((1e-3, (0.6, 0.7), test_scores[0]), (3e-3, (0.8, 0.5), test_scores[1])):
        values = {"pretrained": [validation[0]], "random": [validation[1]]}
        runs += write_runs(folder, predictions, values, rate=rate, test=test)
    runs += write_runs(folder, predictions, {"pretrained": [0.7, 0.7]}, 3e-3, search=False, first_seed=2)
    return runs + write_runs(folder, predictions, {"random": [0.6, 0.6]}, 1e-3, search=False, first_seed=2)


def test_each_model_is_reported_at_the_rate_its_validation_median_chooses_whatever_the_test_scores(party, tmp_path):
    truth = read_task_dir(str(party))[1]["test"].column("label").to_pylist()
    predictions = {"pretrained": truth, "random": [0] * len(truth)}
    baselines = tmp_path / "baselines.json"
    run_baselines(str(party), str(baselines))
    found = {}
    for name, test_scores in (("low", (0.1, 0.2)), ("high", (0.9, 0.2))):  # the rate that wins on test changes
        runs = searched(tmp_path / name, predictions, test_scores)
        found[name] = summarized(
            str(party / "task.json"), runs, [], GRID, [str(baselines)], str(tmp_path / f"{name}.json")
        )
    models = found["low"]["models"]
    assert [models[name]["learning_rate"] for name in ("pretrained", "random")] == [3e-3, 1e-3]
    assert models["pretrained"]["search"] == [{"learning_rate": 1e-3, "validation": 0.6, "runs": 1, "diverged": 0},
                                              {"learning_rate": 3e-3, "validation": 0.8, "runs": 1,
                                               "diverged": 0}]  # fmt: skip
    assert [run["seed"] for run in models["pretrained"]["runs"]] == [1, 2, 3]
    assert [run["validation"]["macro_f1"] for run in models["random"]["runs"]] == [0.7, 0.6, 0.6]  # at 1e-3 only
    assert found["low"]["learning_rates"] == {"grid": [1e-3, 3e-3], "search_seeds": 1, "chosen_on": "validation",
                                              "metric": "macro_f1"}  # fmt: skip
    for name in ("pretrained", "random"):
        assert found["high"]["models"][name]["learning_rate"] == models[name]["learning_rate"]
    assert found["high"]["models"]["random"]["summary"] != models["random"]["summary"]  # the test scores did change
    rows = rows_of(found["low"], "the party")
    assert rows["learning rate"] == (
        "chosen per model on the median validation macro_f1 over 1 seed from 0.001, 0.003 "
        "(then run with seeds 2 to 3): pretrained 0.003, random 0.001"
    )


def test_a_run_at_a_rate_its_search_does_not_choose_is_refused(party, tmp_path):
    truth = read_task_dir(str(party))[1]["test"].column("label").to_pylist()
    predictions = {"pretrained": truth, "random": truth}
    runs = searched(tmp_path / "runs", predictions, (0.5, 0.5))
    runs += write_runs(tmp_path / "runs", predictions, {"pretrained": [0.7]}, 1e-3, search=False, first_seed=4)
    baselines = tmp_path / "baselines.json"
    run_baselines(str(party), str(baselines))
    with pytest.raises(DataError, match=r"result of 'pretrained', seed 4: it ran at the learning rate 0.001, but its "
                                        r"model's search chooses 0.003 \(rerun it\)"):  # fmt: skip
        summarized(str(party / "task.json"), runs, [], GRID, [str(baselines)], str(tmp_path / "metrics.json"))
    assert not (tmp_path / "metrics.json").exists()


def test_a_model_without_its_learning_rate_choice_is_refused_naming_it(party, tmp_path):
    truth = read_task_dir(str(party))[1]["test"].column("label").to_pylist()
    runs = write_runs(tmp_path, {"pretrained": truth}, {"pretrained": [0.6]})
    baselines = tmp_path / "baselines.json"
    run_baselines(str(party), str(baselines))
    with pytest.raises(DataError, match=r"^finetune task 'party': no learning-rate choice of 'pretrained' in \[\]$"):
        summarize_task(str(party / "task.json"), runs, [], [3e-3], [str(baselines)], str(tmp_path / "metrics.json"))
    assert not (tmp_path / "metrics.json").exists()


@pytest.fixture(scope="module")
def party_baselines(party, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("baselines") / "baselines.json"
    run_baselines(str(party), str(path))
    return str(path)


def diverge(path: str, at: str = "training loss nan in epoch 2") -> None:
    """Make the run of `path` one that diverged, as a run that did writes it."""

    run = json.loads(Path(path).read_text())
    scored = dict.fromkeys(run["test"])
    run |= {"diverged": at, "best_epoch": None, "validation": scored, "test": scored, "predictions": None,
            "classes_predicted": {"validation": None, "test": None}}  # fmt: skip
    Path(path).write_text(json.dumps(run))


def test_a_diverged_run_is_counted_and_never_scored(party, party_baselines, tmp_path):
    """Pretrained's chosen seed 3 diverged, and random's search run at 3e-3 (a rate its search does not choose)."""
    truth = read_task_dir(str(party))[1]["test"].column("label").to_pylist()
    runs = searched(tmp_path / "runs", {"pretrained": truth, "random": [0] * len(truth)}, (0.5, 0.5))
    diverge(next(path for path in runs if path.endswith("pretrained-0.003-3.json")))
    diverge(next(path for path in runs if path.endswith("random-0.003-1.json")), "training loss inf in epoch 1")
    found = summarized(str(party / "task.json"), runs, [], GRID, [party_baselines], str(tmp_path / "metrics.json"))
    ours = found["models"]["pretrained"]
    assert [run.get("diverged") for run in ours["runs"]] == [None, None, "training loss nan in epoch 2"]
    assert ours["diverged_runs"] == 1 and ours["summary"]["macro_f1"] == {"median": 0.6, "min": 0.5, "max": 0.7,
                                                                          "runs": 2}  # fmt: skip
    assert found["models"]["random"]["search"][1] == {"learning_rate": 3e-3, "validation": None, "runs": 1,
                                                      "diverged": 1}  # fmt: skip
    assert found["pretraining_gain"]["runs"] == 2 and found["pretraining_gain"]["verdict"] == "yes"
    rows = rows_of(found, "the party")
    assert rows["pretrained (3 seeds)"].endswith("; 1 of 3 seeds diverged (left out)")


def test_a_model_whose_every_rate_diverged_is_refused_naming_it_and_its_rates(party, party_baselines, tmp_path):
    truth = read_task_dir(str(party))[1]["test"].column("label").to_pylist()
    runs = searched(tmp_path / "runs", {"pretrained": truth, "random": truth}, (0.5, 0.5))
    for path in runs:
        if "random-" in path and "-1.json" in path:
            diverge(path)
    refusal = (r"finetune task 'party', model 'random': fine-tuning diverged at every learning rate of the grid "
               r"\(0.001, 0.003; at 0.001, seed 1: training loss nan in epoch 2\), so no rate has a score to report: "
               r"lower the rates")  # fmt: skip
    with pytest.raises(DataError, match=refusal):
        summarized(str(party / "task.json"), runs, [], GRID, [party_baselines], str(tmp_path / "metrics.json"))
    assert not (tmp_path / "metrics.json").exists()


def test_a_test_split_of_one_example_gives_no_interval_and_says_why(tmp_path):
    """One test example is one group: however the seeds and the models differ, nothing can be said at 95%."""
    from finetune_data import pair_rows, write_csv

    rows = pair_rows(61)
    train, test = write_csv(tmp_path / "train.csv", rows[:60]), write_csv(tmp_path / "test.csv", rows[60:])
    task = {"name": "pairs", "type": "files", "format": "csv", "train": str(train), "validation": None,
            "test": str(test), "text_column": "first",
            "text_pair_column": "second", "label_column": "label", "group_column": "doc", "problem": None,
            "metrics": None, "split": {"validation_fraction": 0.2, "test_fraction": 0, "seed": 0, "folds": None},
            "recipe": {}}  # fmt: skip
    prepare_task(task, str(tmp_path / "data"))
    truth = read_task_dir(str(tmp_path / "data"))[1]["test"].column("label").to_pylist()
    runs = write_runs(tmp_path, {"pretrained": [1 - truth[0]], "random": truth}, {"pretrained": [0.5, 0.5],
                                                                                   "random": [0.9, 0.9]})  # fmt: skip
    baselines = tmp_path / "baselines.json"
    run_baselines(str(tmp_path / "data"), str(baselines))
    found = summarized(str(tmp_path / "data/task.json"), runs, [], [3e-3], [str(baselines)],
                           str(tmp_path / "metrics.json"))  # fmt: skip
    reason = "not shown: 1 test group, fewer than 6 to resample"
    assert [(each["interval"], each["verdict"]) for each in found["comparisons"].values()] == [(None, reason)] * 3
    assert found["pretraining_gain"]["verdict"] == reason and found["pretraining_gain"]["interval"] is None
    rows = rows_of(found, "the pairs")
    assert rows["did pretraining pay? (fine-tuned)"] == (
        f"{reason}: pretrained minus random init, macro_f1 -0.400 (-0.400 to -0.400 over 2 seeds, seed by seed); "
        "no interval (1 test group, 1 example)"
    )


def test_the_majority_baselines_matthews_correlation_is_undefined(party):
    """The majority class answers one class to every example: its Matthews correlation divides by zero."""
    task, splits = read_task_dir(str(party))
    found = majority(splits, replace(task, main_metric="matthews", metrics=("matthews", "accuracy")))
    assert found.test["matthews"] is found.validation["matthews"] is None
    assert found.test["accuracy"] == pytest.approx(120 / 216)


def test_the_downstream_figure_writes_an_undefined_score_in_its_row_and_shows_each_verdicts_interval(tmp_path):
    """Top: each model's score, an undefined one written in its row. Below: each difference a verdict rests on, with
    its interval against 0 and its verdict, fine-tuned and probed; one without an interval says why."""

    from snakebert.report.downstream_plot import plot_downstream

    spread = {"median": 0.2, "min": 0.1, "max": 0.3, "runs": 3}
    models = {"pretrained": {"kind": "pretrained", "model": "results/model", "runs": [],
                             "summary": {"matthews": spread}, "one_class_runs": 0},
              "majority": {"kind": "baseline", "model": None, "runs": [], "summary": {"matthews": None},
                           "one_class_runs": 0}}  # fmt: skip
    gain = {"metric": "matthews", "median": 0.05, "min": 0.01, "max": 0.09, "runs": 3, "interval": [0.02, 0.08],
            "verdict": "yes"}  # fmt: skip
    undefined = {"metric": "matthews", "difference": None, "interval": None, "verdict": "not shown: no resample "
                 "scored both models"}  # fmt: skip
    probe_gain = {**gain, "median": -0.01, "interval": [-0.06, 0.04], "verdict": "not shown at this test size"}
    results = {"task": "party", "type": "embedded", "description": "the party", "problem": "classification",
               "labels": ["D", "R"], "main_metric": "matthews", "metrics": ["matthews"], "reported_split": "test",
               "splits": {}, "folds": None, "seeds": [1, 2, 3],
               "learning_rates": {"grid": [1e-3], "search_seeds": 1, "chosen_on": "validation", "metric": "matthews"},
               "models": models, "comparisons": {"random": {"metric": "matthews", "difference": 0.05,
                                                            "interval": [0.02, 0.08], "verdict": "yes"},
                                                 "majority": undefined},
               "pretraining_gain": gain, "adaptation_gain": None, "machines": [],
               "bootstrap": {"level": 0.95, "resamples": 1000, "groups": 7},
               "linear_probe": {"models": models, "pretraining_gain": probe_gain, "adaptation_gain": None,
                                "comparisons": {"majority": undefined}}}  # fmt: skip
    (tmp_path / "metrics.json").write_text(json.dumps(results))
    plot_downstream([str(tmp_path / "metrics.json")], str(tmp_path / "downstream.svg"))
    drawn = (tmp_path / "downstream.svg").read_text()
    assert "<!-- undefined -->" in drawn
    for label in ("pretrained minus random init", "pretrained minus majority", "probe: pretrained minus random init",
                  "probe: pretrained minus majority", "undefined: not shown: no resample scored both models",
                  "party: difference in matthews, 95% interval"):  # fmt: skip
        assert f"<!-- {label} -->" in drawn, label
    assert "<!--  yes -->" in drawn and "<!--  not shown at this test size -->" in drawn


def write_probes(folder, predictions: dict[str, list], values: dict[str, float], seeds: int = 3) -> list[str]:
    """Linear-probe results of each model, one per seed, every seed scoring `values` and predicting `predictions`."""

    kinds = {"pretrained": "pretrained", "random": "random_init"}
    paths = []
    for name, value in values.items():
        for seed in range(1, seeds + 1):
            paths.append(str(folder / f"probe-{name}-{seed}.json"))
            scored = {"macro_f1": value, "accuracy": value}
            probe = probe_result(
                model=name,
                kind=kinds[name],
                seed=seed,
                validation=scored,
                test=scored,
                predictions=predictions[name],
                machine=MACHINE,
            )
            Path(paths[-1]).write_text(json.dumps(as_json(probe)))
    return paths


def test_the_linear_probe_gets_its_own_models_gain_and_verdict_beside_the_same_baselines(party, tmp_path):
    truth = read_task_dir(str(party))[1]["test"].column("label").to_pylist()
    predictions = {"pretrained": truth, "random": [0] * len(truth)}
    probes = write_probes(tmp_path, predictions, {"pretrained": 0.9, "random": 0.4})
    runs = write_runs(
        tmp_path, {"pretrained": [0] * len(truth), "random": truth}, {"pretrained": [0.5], "random": [0.6]}
    )
    baselines = tmp_path / "baselines.json"
    run_baselines(str(party), str(baselines))
    found = summarized(str(party / "task.json"), runs, probes, [3e-3], [str(baselines)], str(tmp_path / "both.json"))
    probe = found["linear_probe"]
    assert list(probe["models"]) == ["pretrained", "random", "majority", "tfidf"]
    scored = {"macro_f1": 0.9, "accuracy": 0.9}
    assert probe["models"]["pretrained"]["runs"][0] == {
        "seed": 1,
        "strength": 1.0,
        "validation": scored,
        "test": scored,
    }
    assert probe["pretraining_gain"]["verdict"] == "yes" and found["pretraining_gain"]["verdict"] == "no"
    assert probe["models"]["tfidf"] == found["models"]["tfidf"]
    rows = rows_of(found, "the party")
    assert rows["did pretraining pay? (fine-tuned)"].startswith("no: ")
    assert rows["did pretraining pay? (linear probe)"].startswith("yes: pretrained minus random init, macro_f1 +0.500")
    assert rows["probe: pretrained (3 seeds)"] == "0.900, 0.900"  # the seeds agree: no range
    assert "probe: majority (baseline)" not in rows and "probe: pretrained against tfidf" in rows
    alone = summarized(str(party / "task.json"), [], probes, [3e-3], [str(baselines)], str(tmp_path / "probe.json"))
    assert alone["learning_rates"] is None and alone["pretraining_gain"] is None and alone["seeds"] == [1, 2, 3]
    assert list(alone["models"]) == ["majority", "tfidf"] and alone["linear_probe"] == probe
    rows = rows_of(alone, "the party")
    assert "did pretraining pay? (fine-tuned)" not in rows and "learning rate" not in rows
    assert rows["did pretraining pay? (linear probe)"].startswith("yes: ")


def test_folds_are_pooled_seed_by_seed_and_resampled_over_every_group(tmp_path):
    """Three folds of the party task: each seed's runs pooled into one run on all 1,448 passages (scored anew, not
    averaged), the baselines pooled the same way, the interval drawn over all 181 speeches; a missing fold refused."""

    folder = tmp_path / "data"
    task = {"name": "party", "type": "embedded", "task": "sotu-party", "passage_words": 100, "passages_per_speech": 8,
            "split": {"validation_fraction": 0.15, "test_fraction": 0, "seed": 0, "folds": 3},
            "recipe": {}}  # fmt: skip
    prepare_task(task, str(folder))
    runs, baseline_files, pooled_truth = [], [], []
    for fold in (1, 2, 3):
        truth = read_task_dir(str(folder / f"fold-{fold}"))[1]["test"].column("label").to_pylist()
        pooled_truth += truth
        for name, kind, predicted in (("pretrained", "pretrained", truth), ("random", "random_init", [0] * len(truth))):
            for seed in (2, 1):  # the summary orders them
                fold_score = sklearns(truth, predicted, 2)
                run = run_result(model=name, kind=kind, seed=seed, fold=fold, best_epoch=float(fold),
                                 validation=fold_score, test=fold_score, predictions=predicted, machine=MACHINE,
                                 classes_predicted={"validation": 2, "test": len(set(predicted))})  # fmt: skip
                (tmp_path / f"{name}-{fold}-{seed}.json").write_text(json.dumps(as_json(run)))
                runs.append(str(tmp_path / f"{name}-{fold}-{seed}.json"))
        baseline_files.append(str(tmp_path / f"baselines-{fold}.json"))
        run_baselines(str(folder / f"fold-{fold}"), baseline_files[-1])
    found = summarized(str(folder / "task.json"), runs, [], [3e-3], baseline_files, str(tmp_path / "metrics.json"))
    assert found["folds"] == 3 and found["bootstrap"]["groups"] == 181 and found["splits"]["test"]["examples"] == 1448
    random = found["models"]["random"]["runs"]
    assert [run["seed"] for run in random] == [1, 2] and [run["fold"] for run in random[0]["folds"]] == [1, 2, 3]
    assert random[0]["test"]["macro_f1"] == pytest.approx(sklearns(pooled_truth, [0] * 1448, 2)["macro_f1"])
    assert random[0]["classes_predicted"] == {"test": 1} and found["models"]["random"]["one_class_runs"] == 2
    assert found["models"]["pretrained"]["summary"]["accuracy"]["median"] == 1.0
    assert found["learning_rates"]["search_seeds"] == 2
    fitted = [json.loads(Path(path).read_text())["majority"] for path in baseline_files]
    correct = sum(fold["test"]["accuracy"] * len(fold["predictions"]) for fold in fitted)
    assert found["models"]["majority"]["runs"][0]["test"]["accuracy"] == pytest.approx(correct / 1448)
    assert found["pretraining_gain"]["verdict"] == "yes"
    rows = rows_of(found, "the party")
    assert (
        rows["splits"].endswith(", 3 folds pooled")
        and "181 test groups, 1,448 examples, 3 folds pooled" in (rows["did pretraining pay? (fine-tuned)"])
    )
    with pytest.raises(DataError, match=r"results of 'party', seed 1: folds \[1, 3\], expected one run of each of"):
        summarized(
            str(folder / "task.json"),
            [run for run in runs if "-2-1" not in run],
            [],
            [3e-3],
            baseline_files,
            str(tmp_path / "missing.json"),
        )
    assert not (tmp_path / "missing.json").exists()
