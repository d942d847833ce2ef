"""The nodes of a SLURM allocation, as the multi-node launchers need them: SLURM's compressed node list expanded,
a DeepSpeed hostfile for Gaudi, and a torchrun rendezvous for torch.distributed. They read the job's environment
as a dict, so that the tests can give them any node list."""

import re
import shutil
import subprocess

from ..environment_integers import environment_integer
from ..errors import DataError

# One host expression: text and bracketed ranges, e.g. `dl1-[001-004,007]` or `rack[1-2]-node[01-02]`.
_PART = re.compile(r"\[([^\]]*)\]|[^\[\]]+")


def _range(text: str, expression: str) -> list[str]:
    """`01-03` -> ['01', '02', '03'] (the start's zero padding kept); `7` -> ['7']."""
    start, dash, stop = text.partition("-")
    if not start.isdigit() or (dash and not stop.isdigit()):
        raise DataError(f"SLURM node list {expression!r}: cannot read the range [{text}]")
    width = len(start) if start.startswith("0") else 0
    last = int(stop) if dash else int(start)
    if last < int(start):
        raise DataError(f"SLURM node list {expression!r}: the range [{text}] runs backwards")
    return [str(number).zfill(width) for number in range(int(start), last + 1)]


def _split_top_level(expression: str) -> list[str]:
    """Split at the commas that lie outside brackets."""
    parts, depth, current = [], 0, ""
    for char in expression:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth < 0 or depth > 1:
            raise DataError(f"SLURM node list {expression!r}: unbalanced brackets")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if depth:
        raise DataError(f"SLURM node list {expression!r}: unbalanced brackets")
    return [*parts, current]


def expand_nodelist(expression: str) -> list[str]:
    """SLURM's node list (`SLURM_JOB_NODELIST`), expanded in SLURM's order: `dl1-[001-002],gpu7` ->
    ['dl1-001', 'dl1-002', 'gpu7']; with several bracket groups the first one varies slowest."""
    hosts = []
    for item in _split_top_level(expression.strip()):
        if not item:
            raise DataError(f"SLURM node list {expression!r}: an empty host name")
        names = [""]
        for match in _PART.finditer(item):
            if match.group(1) is None:
                choices = [match.group(0)]
            else:
                choices = [value for text in match.group(1).split(",") for value in _range(text, expression)]
            names = [name + choice for name in names for choice in choices]
        hosts += names
    return hosts


def allocated_nodes(environment: dict, nodes: int) -> list[str]:
    """The job's hosts, which must be the `nodes` that pretrain asked for."""
    listed = environment.get("SLURM_JOB_NODELIST")
    if not listed:
        raise DataError(
            f"pretrain asked for {nodes} nodes, but SLURM_JOB_NODELIST is not set: a multi-node launch runs inside "
            "a SLURM job (profiles/slurm-dl1, profiles/slurm-gpu)"
        )
    hosts = expand_nodelist(listed)
    if len(hosts) != nodes:
        raise DataError(
            f"pretrain asked for {nodes} nodes, but SLURM gave this job {len(hosts)} ({listed}): SLURM shrinks the "
            "node count to the task count, so the profile's `tasks` must equal `nodes`"
        )
    return hosts


def hostfile(hosts: list[str], slots: int) -> str:
    """A DeepSpeed hostfile: one `host slots=N` line per node, the first node first (the master address)."""
    return "".join(f"{host} slots={slots}\n" for host in hosts)


def rendezvous_port(environment: dict, base: int = 29500) -> int:
    """The rendezvous port: drawn from the job ID, so that two jobs sharing a head node do not meet."""
    return base + environment_integer(environment, "SLURM_JOB_ID", 0) % 1000


def torchrun_arguments(hosts: list[str], ranks_per_node: int, environment: dict) -> list[str]:
    """torchrun's arguments for one node of a multi-node run: a c10d rendezvous on the first node, identified by
    the job ID; every node runs the same command and the rendezvous gives each its node rank."""
    return [
        f"--nnodes={len(hosts)}",
        f"--nproc_per_node={ranks_per_node}",
        "--rdzv_backend=c10d",
        f"--rdzv_endpoint={hosts[0]}:{rendezvous_port(environment)}",
        f"--rdzv_id={environment.get('SLURM_JOB_ID', 'snakebert')}",
    ]


def check_multi_node_launch(hosts: list[str]) -> None:
    """What DeepSpeed's multi-node launch needs, checked before any rank starts: `deepspeed` and `pdsh` here, and
    password-less SSH to every node (DeepSpeed itself tries the first node only)."""
    for tool in ("deepspeed", "pdsh"):
        if shutil.which(tool) is None:
            raise DataError(
                f"a multi-node Gaudi launch needs `{tool}` on PATH (docs/scaling-out.md): DeepSpeed starts every "
                "node's ranks through pdsh over SSH"
            )
    for host in hosts:
        probe = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", host, "true"]
        done = subprocess.run(probe, capture_output=True, text=True)
        if done.returncode != 0:
            raise DataError(
                f"cannot reach node {host} over SSH without a password (`{' '.join(probe)}` exited "
                f"{done.returncode}: {done.stderr.strip()}); DeepSpeed starts each node's ranks over SSH "
                "(docs/scaling-out.md)"
            )
