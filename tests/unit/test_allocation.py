"""The multi-node launch from a SLURM allocation: node lists expanded as SLURM writes them, the DeepSpeed hostfile,
the torchrun rendezvous, and the errors that name what is wrong before any rank starts."""

import pytest

from snakebert.errors import DataError
from snakebert.launch.allocation import (
    allocated_nodes,
    expand_nodelist,
    hostfile,
    rendezvous_port,
    torchrun_arguments,
)


@pytest.mark.parametrize(
    "listed, hosts",
    [
        ("dl1-001", ["dl1-001"]),
        ("dl1-[001-003]", ["dl1-001", "dl1-002", "dl1-003"]),
        ("dl1-[001-002,010],gpu7", ["dl1-001", "dl1-002", "dl1-010", "gpu7"]),
        ("node[8-11]", ["node8", "node9", "node10", "node11"]),
        ("rack[1-2]-n[01-02]", ["rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"]),
        ("a,b[3],c", ["a", "b3", "c"]),
        ("ip-10-0-0-[5,7]", ["ip-10-0-0-5", "ip-10-0-0-7"]),
    ],
)
def test_node_lists_expand_in_slurms_order(listed, hosts):
    assert expand_nodelist(listed) == hosts


@pytest.mark.parametrize(
    "listed, problem",
    [
        ("dl1-[001-003", "unbalanced brackets"),
        ("dl1-001],b", "unbalanced brackets"),
        ("dl1-[a-c]", "cannot read the range [a-c]"),
        ("dl1-[5-3]", "the range [5-3] runs backwards"),
        ("a,,b", "an empty host name"),
    ],
)
def test_a_node_list_that_cannot_be_read_is_named(listed, problem):
    with pytest.raises(DataError, match=f"SLURM node list {listed!r}: {problem}".replace("[", r"\[")):
        expand_nodelist(listed)


def test_the_allocation_must_have_the_nodes_pretrain_asked_for():
    assert allocated_nodes({"SLURM_JOB_NODELIST": "dl1-[1-4]"}, 4) == ["dl1-1", "dl1-2", "dl1-3", "dl1-4"]
    with pytest.raises(DataError, match=r"asked for 4 nodes, but SLURM gave this job 1 \(dl1-1\).*tasks.*equal"):
        allocated_nodes({"SLURM_JOB_NODELIST": "dl1-1"}, 4)
    with pytest.raises(DataError, match="asked for 2 nodes, but SLURM_JOB_NODELIST is not set"):
        allocated_nodes({}, 2)


def test_the_hostfile_lists_each_node_with_its_devices_the_first_node_first():
    assert hostfile(["dl1-3", "dl1-1"], 8) == "dl1-3 slots=8\ndl1-1 slots=8\n"


def test_every_node_meets_at_the_same_rendezvous_on_the_first_node():
    environment = {"SLURM_JOB_ID": "123456", "SLURM_JOB_NODELIST": "gpu[1-2]"}
    hosts = allocated_nodes(environment, 2)
    assert torchrun_arguments(hosts, 8, environment) == [
        "--nnodes=2",
        "--nproc_per_node=8",
        "--rdzv_backend=c10d",
        "--rdzv_endpoint=gpu1:29956",
        "--rdzv_id=123456",
    ]
    assert rendezvous_port({"SLURM_JOB_ID": "123457"}) == 29957  # another job on the same head node: another port
