"""The interval of a difference between two models (snakebert/finetune/interval.py): a paired bootstrap over the
test groups and the seeds, checked against every resample of a case small enough to enumerate, and the verdict it
gives."""

import itertools

import numpy as np
import pytest

from snakebert.finetune.interval import (
    MIN_GROUPS,
    NO_WIDTH,
    NONE_SCORED,
    NOT_SHOWN,
    difference_interval,
    group_members,
    judged,
    resampled_scores,
    verdict,
)

TRUTH = np.array([1, 0, 1, 0, 1, 1, 0])
GROUPS = np.array(["b", "b", "a", "a", "c", "c", "c"])
RUNS = {  # two seeds each, paired by seed
    "first": [np.array([1, 0, 1, 1, 1, 1, 0]), np.array([1, 1, 1, 0, 0, 1, 0])],
    "second": [np.array([0, 0, 1, 1, 0, 1, 1]), np.array([1, 0, 0, 0, 1, 0, 0])],
}


def accuracy(truth, predicted):
    return float((truth == predicted).mean())


def test_the_groups_are_numbered_in_order_of_first_appearance():
    assert [rows.tolist() for rows in group_members(GROUPS)] == [[0, 1], [2, 3], [4, 5, 6]]


def test_the_interval_is_the_one_every_resample_of_groups_and_seeds_gives():
    members = group_members(GROUPS)
    exact = []  # 3 groups drawn 3 times with replacement, then one of 2 seeds: 54 resamples, equally likely
    for drawn in itertools.product(range(3), repeat=3):
        rows = np.concatenate([members[group] for group in drawn])
        for seed in range(2):
            scored = [accuracy(TRUTH[rows], RUNS[name][seed][rows]) for name in ("first", "second")]
            exact.append(scored[0] - scored[1])
    exact = np.array(exact)
    expected = np.quantile(exact, [0.025, 0.975], method="inverted_cdf")
    assert (exact <= expected[0]).mean() > 0.025 > (exact < expected[0]).mean() + 0.005  # not at a step's edge
    assert (exact >= expected[1]).mean() > 0.025 > (exact > expected[1]).mean() + 0.005
    found = resampled_scores(accuracy, TRUTH, GROUPS, RUNS, resamples=20_000)
    assert difference_interval(found["first"], found["second"]) == pytest.approx(tuple(expected))
    assert (found["first"] - found["second"]).mean() == pytest.approx(exact.mean(), abs=0.01)
    again = resampled_scores(accuracy, TRUTH, GROUPS, RUNS, resamples=20_000)
    assert all(np.array_equal(found[name], again[name]) for name in RUNS)  # a fixed seed: the same draws


def test_seeds_are_paired_and_a_one_run_model_is_scored_on_the_same_rows():
    twin = {"first": RUNS["first"], "copy": [run.copy() for run in RUNS["first"]], "one run": [RUNS["first"][0]]}
    found = resampled_scores(accuracy, TRUTH, GROUPS, twin, resamples=200)
    assert difference_interval(found["first"], found["copy"]) == (0.0, 0.0)  # the same seed on the same rows
    differences = found["first"] - found["one run"]
    assert (differences == 0).any() and (differences != 0).any()  # seed 1 against itself, seed 2 against seed 1


def test_a_resample_with_an_undefined_score_is_left_out_and_none_defined_gives_no_interval():
    def defined_on_even_row_counts(truth, predicted):
        return accuracy(truth, predicted) if len(truth) % 2 == 0 else None

    found = resampled_scores(defined_on_even_row_counts, TRUTH, GROUPS, RUNS, resamples=300)
    assert np.isnan(found["first"]).any() and not np.isnan(found["first"]).all()
    assert difference_interval(found["first"], found["second"]) is not None
    nothing = np.full(5, np.nan)
    assert difference_interval(nothing, nothing) is None
    assert judged(nothing, nothing, MIN_GROUPS) == {"interval": None, "verdict": NONE_SCORED}


def test_a_run_without_predictions_a_diverged_one_is_left_out_where_drawn():
    found = resampled_scores(accuracy, TRUTH, GROUPS, {"first": [RUNS["first"][0], None]}, resamples=200)
    assert np.isnan(found["first"]).any() and not np.isnan(found["first"]).all()


@pytest.mark.parametrize(
    ("groups", "expected"),
    [
        (1, "not shown: 1 test group, fewer than 6 to resample"),
        (5, "not shown: 5 test groups, fewer than 6 to resample"),
    ],
)
def test_too_few_groups_give_no_interval_and_say_so(groups, expected):
    """However far apart the scores: with 5 groups, even all 5 favouring one model is a two-sided sign-test p of
    0.0625."""
    assert judged(np.full(9, 0.9), np.full(9, 0.4), groups) == {"interval": None, "verdict": expected}


def test_a_zero_width_interval_is_no_verdict():
    """Every resample gave the same difference (a resampling that saw no variation, as one group gives): no interval,
    and no yes or no."""
    assert judged(np.full(9, 0.5), np.full(9, 1.0), MIN_GROUPS) == {"interval": None, "verdict": NO_WIDTH}
    assert judged(np.array([0.5, 0.6, 0.7]), np.full(3, 0.4), MIN_GROUPS)["verdict"] == "yes"


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ([0.7, 0.8, 0.75, 0.72], [0.5, 0.55, 0.6, 0.52], "yes"),  # above 0 in every resample
        ([0.5, 0.55, 0.6, 0.52], [0.7, 0.8, 0.75, 0.72], "no"),  # below 0 in every resample
        ([0.7, 0.5, 0.6, 0.65], [0.6, 0.6, 0.6, 0.6], NOT_SHOWN),  # 0 inside
    ],
)
def test_the_verdict_follows_the_interval(first, second, expected):
    interval = difference_interval(np.array(first), np.array(second), level=0.5)
    assert verdict(interval) == expected
