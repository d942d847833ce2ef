"""The SLURM profiles' node count, from SNAKEBERT_NODES: a whole number (`2.0` is 2), anything else refused naming the
variable, never a bare `invalid literal for int()`. The profiles are read as Snakemake reads them (a YTE template)."""

from pathlib import Path

import pytest
import yte

PROFILES = Path(__file__).resolve().parents[2] / "profiles"
SLURM_PROFILES = ["slurm-cpu", "slurm-dl1", "slurm-gpu"]


def pretrain_nodes(profile: str) -> int:
    with (PROFILES / profile / "config.yaml").open() as stream:
        return yte.process_yaml(stream, require_use_yte=True)["set-resources"]["pretrain"]["nodes"]


@pytest.mark.parametrize("profile", SLURM_PROFILES)
@pytest.mark.parametrize(("set_to", "nodes"), [(None, 1), ("", 1), ("4", 4), ("2.0", 2), (" 3 ", 3)])
def test_a_whole_number_of_nodes_is_read_as_an_integer(monkeypatch, profile, set_to, nodes):
    if set_to is None:
        monkeypatch.delenv("SNAKEBERT_NODES", raising=False)
    else:
        monkeypatch.setenv("SNAKEBERT_NODES", set_to)
    found = pretrain_nodes(profile)
    assert (type(found), found) == (int, nodes)


@pytest.mark.parametrize("profile", SLURM_PROFILES)
@pytest.mark.parametrize("set_to", ["2.5", "two", "0", "-1", "1e3"])
def test_a_node_count_that_is_not_a_whole_number_of_at_least_1_is_refused_naming_the_variable(
    monkeypatch, profile, set_to
):
    monkeypatch.setenv("SNAKEBERT_NODES", set_to)
    with pytest.raises(Exception, match=rf"SNAKEBERT_NODES='{set_to}': the pretrain job's nodes, a whole number"):
        pretrain_nodes(profile)
