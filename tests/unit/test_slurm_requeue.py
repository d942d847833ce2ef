"""The SLURM requeue watcher's interval: INTERVAL_SECONDS, or $SNAKEBERT_REQUEUE_WATCH_SECONDS where it is a positive
number, refused by name otherwise (the watcher itself runs on the test cluster: tests/slurm/test_slurm_stops.py)."""

import pytest

from snakebert.config_validation import ConfigError
from snakebert.slurm_requeue import INTERVAL_SECONDS, INTERVAL_VARIABLE, interval_seconds


def test_the_interval_is_the_default_unless_the_variable_sets_it(monkeypatch):
    monkeypatch.delenv(INTERVAL_VARIABLE, raising=False)
    assert interval_seconds() == INTERVAL_SECONDS == 30
    monkeypatch.setenv(INTERVAL_VARIABLE, "2.5")
    assert interval_seconds() == 2.5


@pytest.mark.parametrize("value", ["0", "-1", "", "soon", "inf", "nan"])
def test_an_interval_that_is_not_a_positive_number_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv(INTERVAL_VARIABLE, value)
    with pytest.raises(ConfigError, match=f"^{INTERVAL_VARIABLE}='{value}': the seconds between two looks must be"):
        interval_seconds()
