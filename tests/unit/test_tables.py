"""The extension points are tables: the schema's choices equal their keys (sources, formats, tasks, metrics,
problems, architectures, backends, trackers), `auto` resolves from the rule's devices, each backend launches as it
should, and what is not in a table is an error that names it."""

import pytest
import yaml

from snakebert.architectures import ARCHITECTURE_FACTS
from snakebert.config_defaults import SCHEMA
from snakebert.data.formats import FORMATS, read_files
from snakebert.data.shards import EMBEDDED_CORPORA
from snakebert.data.sources import SOURCE_TYPES, plan_source
from snakebert.errors import DataError
from snakebert.finetune.baselines import BASELINES
from snakebert.finetune.embedded import EMBEDDED_TASKS
from snakebert.finetune.hub_task import PRESETS
from snakebert.finetune.linear_probe import PROBES
from snakebert.finetune.metrics import METRICS
from snakebert.finetune.plan import BASELINE_NAMES
from snakebert.finetune.problems import PROBLEMS
from snakebert.finetune.tasks import TASK_TYPES
from snakebert.hub import UPLOADS, upload_plan
from snakebert.tracking.trackers import TRACKERS
from snakebert.training.backends import BACKENDS, cuda_arguments, device_count, rank, resolve_backend, world_size
from snakebert.training.model import ARCHITECTURES

PROPERTIES = yaml.safe_load(SCHEMA.read_text())["properties"]
SOURCE_SCHEMAS = {
    branch["then"]["properties"]["type"]["const"]: branch["then"] for branch in PROPERTIES["sources"]["items"]["allOf"]
}
NO_DEVICES = {"hpu": 0, "gpu": 0}


def test_the_schemas_source_types_and_formats_are_the_tables_keys():
    assert PROPERTIES["sources"]["items"]["properties"]["type"]["enum"] == sorted(SOURCE_TYPES)
    assert set(SOURCE_SCHEMAS) == set(SOURCE_TYPES)
    assert SOURCE_SCHEMAS["files"]["properties"]["format"]["enum"] == list(FORMATS)
    assert SOURCE_SCHEMAS["embedded"]["properties"]["corpus"]["enum"] == list(EMBEDDED_CORPORA)


def test_the_schemas_task_types_presets_and_metrics_are_the_tables_keys():
    finetune = PROPERTIES["finetune"]["properties"]
    tasks = finetune["tasks"]["items"]
    branches = {branch["then"]["properties"]["type"]["const"]: branch["then"] for branch in tasks["allOf"]}
    assert tasks["properties"]["type"]["enum"] == sorted(TASK_TYPES) and set(branches) == set(TASK_TYPES)
    assert branches["embedded"]["properties"]["task"]["enum"] == list(EMBEDDED_TASKS)
    assert branches["hub"]["properties"]["preset"]["enum"] == [*PRESETS, None]
    assert yaml.safe_load(SCHEMA.read_text())["$defs"]["metrics"]["items"]["enum"] == list(METRICS)
    assert finetune["backend"]["enum"] == ["auto", *sorted(BACKENDS)]


def test_the_schemas_problems_are_the_tables_keys_and_every_metric_measures_one():
    assert yaml.safe_load(SCHEMA.read_text())["$defs"]["problem"]["enum"] == [*PROBLEMS, None]  # None: the default
    assert {name for problem in PROBLEMS.values() for name in problem.metrics} == set(METRICS)
    assert all(set(problem.default_metrics) <= set(problem.metrics) for problem in PROBLEMS.values())


def test_every_problem_has_its_baselines_and_the_reserved_names_are_theirs():
    assert set(BASELINES) == set(PROBLEMS)
    assert {name for found in BASELINES.values() for name in found} == set(BASELINE_NAMES)


def test_every_problems_probe_is_a_probe_of_the_table():
    assert {problem.probe for problem in PROBLEMS.values()} == set(PROBES)


def test_the_schemas_architectures_are_the_tables_keys():
    enum = PROPERTIES["model"]["properties"]["architecture"]["enum"]
    assert enum == [*ARCHITECTURES, None]  # None: a continued run's base's (training/base_model.py)
    assert list(ARCHITECTURES) == list(ARCHITECTURE_FACTS)


def test_the_schemas_trackers_are_the_tables_keys():
    assert PROPERTIES["tracking"]["properties"]["trackers"]["items"]["enum"] == list(TRACKERS)


def test_the_schemas_backends_are_auto_and_the_tables_keys():
    assert PROPERTIES["pretrain"]["properties"]["backend"]["enum"] == ["auto", *sorted(BACKENDS)]
    assert {backend.resource for backend in BACKENDS.values()} - {None} == set(NO_DEVICES)


def test_an_unknown_format_or_source_type_is_named():
    with pytest.raises(DataError, match="unknown file format 'csv' \\(known: text, lines, jsonl, parquet, arrow\\)"):
        read_files("csv", ["a.csv"], "text", 1000)
    with pytest.raises(DataError, match="source 'mine': unknown type 'ftp'"):
        plan_source({"name": "mine", "type": "ftp"})


@pytest.mark.parametrize(
    ("requested", "devices", "resolved"),
    [
        ("auto", NO_DEVICES, "cpu"),
        ("auto", {"hpu": 8, "gpu": 0}, "hpu"),
        ("auto", {"hpu": 0, "gpu": 2}, "cuda"),
        ("auto", {"hpu": 8, "gpu": 2}, "hpu"),
        ("cuda", NO_DEVICES, "cuda"),
    ],
)
def test_auto_is_the_first_backend_given_devices(requested, devices, resolved):
    assert resolve_backend(requested, devices) == resolved


def test_each_backend_launches_one_rank_per_device():
    script = "scripts/{}".format
    launch = {name: backend.launch for name, backend in BACKENDS.items()}
    assert launch["hpu"](device_count("hpu", {"hpu": 8, "gpu": 0}), None, script) == (
        "python scripts/gaudi_spawn.py --world_size 8 --use_mpi"
    )
    assert launch["hpu"](device_count("hpu", NO_DEVICES), None, script).endswith("--world_size 1 --use_mpi")
    assert launch["cuda"](device_count("cuda", {"hpu": 0, "gpu": 4}), None, script) == (
        "python scripts/torch_spawn.py --nproc_per_node 4"
    )
    assert launch["cuda"](1, None, script) == launch["cpu"](device_count("cpu", NO_DEVICES), None, script) == "python"


def test_a_node_count_launches_through_slurm():
    script = "scripts/{}".format
    launch = {name: backend.launch for name, backend in BACKENDS.items()}
    assert device_count("hpu", {"hpu": 16, "gpu": 0}, 2) == 16  # the job's devices over all its nodes
    assert device_count("cpu", NO_DEVICES, 2) == 2  # no devices: a rank per node
    assert launch["hpu"](8, 1, script) == "python scripts/gaudi_spawn.py --world_size 8 --use_mpi"
    assert launch["hpu"](8, 4, script) == "python scripts/gaudi_spawn.py --world_size 32 --nodes 4 --use_deepspeed"
    step = "srun --overlap --nodes 2 --ntasks 2 --ntasks-per-node 1"
    spawn = "python scripts/torch_spawn.py --nodes 2"
    assert launch["cuda"](8, 2, script) == f"{step} --gpus-per-node 8 --kill-on-bad-exit=1 {spawn} --nproc_per_node 8"
    assert launch["cpu"](1, 2, script) == f"{step} --kill-on-bad-exit=1 {spawn} --nproc_per_node 1"


def test_ranks_read_the_variables_of_their_launcher(monkeypatch):
    for name in ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "WORLD_SIZE", "RANK"):
        monkeypatch.delenv(name, raising=False)
    assert world_size("hpu") == world_size("cpu") == 1 and rank("hpu") == 0
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "8")
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "3")
    assert (world_size("hpu"), rank("hpu")) == (8, 3)
    assert (world_size("cuda"), rank("cuda")) == (1, 0)  # mpirun's variables are not torchrun's
    monkeypatch.setenv("WORLD_SIZE", "4")
    assert world_size("cuda") == 4


def test_cuda_arguments_turn_on_bf16_and_tf32_from_ampere_and_always_fuse_adamw():
    assert cuda_arguments(True, (9, 0)) == {
        "bf16": True, "tf32": True, "optim": "adamw_torch_fused", "torch_compile": True,
    }  # fmt: skip
    older = cuda_arguments(False, (7, 0))
    assert older == {"bf16": False, "tf32": False, "optim": "adamw_torch_fused", "torch_compile": False}


def test_hub_uploads_send_exactly_the_listed_outputs_and_each_card_as_the_readme(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for path in ("tokenizer/tokenizer.json", "model/config.json", "model/README.md", "eval/metrics.json",
                 "dataset/manifest.json", "blocks/a/shard-00000.arrow", "cards/model/README.md",
                 "cards/dataset/README.md"):  # fmt: skip
        (tmp_path / "results" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "results" / path).touch()
    tokenizer = upload_plan(UPLOADS["tokenizer"], ["results/tokenizer"])
    assert tokenizer == {"tokenizer.json": "results/tokenizer/tokenizer.json"}
    files = ["results/dataset/manifest.json", "results/blocks/a/shard-00000.arrow", "results/cards/dataset/README.md"]
    assert upload_plan(UPLOADS["dataset"], files) == {
        "README.md": "results/cards/dataset/README.md",
        "blocks/a/shard-00000.arrow": "results/blocks/a/shard-00000.arrow",
        "dataset/manifest.json": "results/dataset/manifest.json",
    }
    assert upload_plan(UPLOADS["model"], ["results/model", "results/cards/model/README.md"]) == {
        "README.md": "results/cards/model/README.md",
        "config.json": "results/model/config.json",
    }
    assert {upload.setting for upload in UPLOADS.values()} <= set(PROPERTIES["hub"]["properties"])
