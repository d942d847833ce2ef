"""Integers the training jobs read from their environment (a launcher's world size and rank, SLURM's job ID): a whole
number, `2.0` read as 2, anything else refused naming the variable, never a bare `invalid literal for int()`."""

import pytest

from snakebert.errors import DataError
from snakebert.launch.allocation import rendezvous_port
from snakebert.training.backends import rank, world_size


@pytest.mark.parametrize(("set_to", "size"), [("8", 8), ("8.0", 8), (" 4 ", 4), ("", 1)])
def test_a_whole_number_of_ranks_is_read_as_an_integer(monkeypatch, set_to, size):
    monkeypatch.setenv("WORLD_SIZE", set_to)
    monkeypatch.setenv("RANK", "2.0")
    assert (type(world_size("cpu")), world_size("cpu"), rank("cpu")) == (int, size, 2)


@pytest.mark.parametrize("set_to", ["8.5", "eight", "-1", "1e3"])
def test_a_world_size_that_is_not_a_whole_number_is_refused_naming_the_variable(monkeypatch, set_to):
    monkeypatch.setenv("WORLD_SIZE", set_to)
    with pytest.raises(DataError, match=rf"environment variable WORLD_SIZE='{set_to}' is not a whole number"):
        world_size("cpu")


def test_the_rendezvous_port_reads_slurms_job_id_or_names_it():
    assert rendezvous_port({"SLURM_JOB_ID": "123456"}) == rendezvous_port({"SLURM_JOB_ID": "123456.0"}) == 29956
    with pytest.raises(DataError, match=r"environment variable SLURM_JOB_ID='12a' is not a whole number"):
        rendezvous_port({"SLURM_JOB_ID": "12a"})
