"""Our HPU code path through the real optimum-habana 1.18.1 classes, on the CPU (the Habana runtime is stood in for,
see standins/README.md): pretrain's GaudiTrainer trains, checkpoints, resumes and saves a loadable model, and
gaudi_spawn builds the commands of optimum-habana's DistributedRunner."""

import argparse
import dataclasses
import itertools
import json
import math
import os
import shlex
import shutil
import signal
import sys
from types import SimpleNamespace

import pytest
import torch
from helpers import load_script
from optimum.habana import GaudiConfig, GaudiTrainer, GaudiTrainingArguments
from optimum.habana.distributed import DistributedRunner
from shape_log import changed_ops, training_step_shapes
from tensorboard_history import events, scalars
from transformers import (
    AutoModelForMaskedLM,
    AutoTokenizer,
    BertForMaskedLM,
    PrinterCallback,
    TrainerCallback,
    pipeline,
)
from transformers.integrations import TensorBoardCallback

import snakebert.training.calibration as calibration
import snakebert.training.pretrain as pretrain_script
import snakebert.training.trainers as trainers
from snakebert.config_defaults import schema_defaults
from snakebert.errors import DataError, StoppedOnRequest
from snakebert.files.json_views import as_json
from snakebert.tracking.tensorboard import SegmentHistory
from snakebert.training.backends import GAUDI_CONFIG
from snakebert.training.block_dataset import EpochSampler
from snakebert.training.checkpoints import COMPLETE_FILE
from snakebert.training.job import TrainingJob
from snakebert.training.phases import plan_phases
from snakebert.training.progress import ProgressLog

gaudi_spawn = load_script("gaudi_spawn")

MODEL = {
    "hidden_size": 32,
    "num_hidden_layers": 1,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 32,
}
PRETRAIN = {
    **schema_defaults("pretrain"),
    "backend": "hpu",
    "max_steps": 4,
    "per_device_train_batch_size": 4,
    "gradient_accumulation_steps": 2,
    "learning_rate": 1e-3,
    "warmup_steps": 1,
    "logging_steps": 1,
    "save_steps": 2,
    "eval_steps": 2,
    "eval_blocks": 4,
    "per_device_eval_batch_size": 4,
    "dataloader_num_workers": 0,
    "throughput_warmup_steps": 1,
}


def hpu_job(data, folder) -> TrainingJob:
    """A training job on the HPU path, with the Gaudi classes running on the CPU, its history in TensorBoard."""
    return TrainingJob(
        str(data.manifest),
        str(data.tokenizer),
        MODEL,
        PRETRAIN,
        backend="hpu",
        checkpoints=str(folder / "checkpoints"),
        on_device=False,
        trackers=("tensorboard",),
        tracking_dir=str(folder / "logs/tracking"),
    )


def run_pretrain(data, folder):
    """scripts/pretrain.py's pretrain on the HPU path."""
    return as_json(pretrain_script.pretrain(hpu_job(data, folder), str(folder / "model")))


def spied_pretrain(job: TrainingJob, folder, out: str = "model") -> tuple[dict, list]:
    """scripts/pretrain.py's pretrain of `job` into `folder`/`out`, run in `folder`, and the trainers it built (a spy
    around trainers.build_trainer)."""
    built = []

    def build_trainer(*args, **kwargs):
        built.append(trainers.build_trainer(*args, **kwargs))
        return built[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pretrain_script, "build_trainer", build_trainer)
        patch.delenv("WORLD_SIZE", raising=False)
        patch.chdir(folder)
        metrics = pretrain_script.pretrain(job, str(folder / out))
    return as_json(metrics), built


@pytest.fixture(scope="module")
def trained(tiny_data, tmp_path_factory):
    """One pretrain run; the trainer that pretrain built is kept (a spy around trainers.build_trainer)."""
    folder = tmp_path_factory.mktemp("trained")
    metrics, [trainer] = spied_pretrain(hpu_job(tiny_data, folder), folder)
    return argparse.Namespace(folder=folder, metrics=metrics, trainer=trainer)


def test_pretrain_uses_gaudi_trainer_and_arguments(trained):
    trainer, args = trained.trainer, trained.trainer.args
    assert isinstance(trainer, GaudiTrainer) and isinstance(
        trainer.get_train_dataloader().batch_sampler.sampler, EpochSampler
    )
    assert type(args) is GaudiTrainingArguments
    assert (args.use_habana, args.use_lazy_mode, args.use_cpu) == (False, False, True)
    assert args.throughput_warmup_steps == PRETRAIN["throughput_warmup_steps"]
    assert args.dataloader_drop_last is True
    assert args.max_steps == PRETRAIN["max_steps"]
    assert args.gradient_accumulation_steps == PRETRAIN["gradient_accumulation_steps"]


def test_gaudi_trainer_reports_to_the_trackers_asked_for_and_no_other(trained):
    """GaudiTrainingArguments' report_to defaults to every installed integration: the job's trainer reports to none
    of its own, and the one TensorBoard callback is the job's, whose history holds the logged losses."""
    trainer = trained.trainer
    assert trainer.args.report_to == []
    integrations = [callback for callback in trainer.callback_handler.callbacks
                    if type(callback).__module__.startswith("transformers.integrations")]  # fmt: skip
    assert integrations == []
    [history] = [
        callback for callback in trainer.callback_handler.callbacks if isinstance(callback, TensorBoardCallback)
    ]
    assert isinstance(history, SegmentHistory)
    [folder] = (trained.folder / "logs/tracking").iterdir()
    logged = [(entry["step"], entry["loss"]) for entry in trainer.state.log_history if "loss" in entry]
    curve = scalars(events(folder), "train/loss")
    assert [step for step, _ in curve] == [step for step, _ in logged]
    assert [loss for _, loss in curve] == pytest.approx([loss for _, loss in logged])


def test_gaudi_config_is_ours_with_fused_ops_and_autocast(trained):
    config = trained.trainer.gaudi_config
    assert type(config) is GaudiConfig
    assert (config.use_fused_adam, config.use_fused_clip_norm, config.use_torch_autocast) == (True, True, True)
    saved = GaudiConfig.from_pretrained(str(trained.folder / "model"))
    assert saved.to_dict() == GaudiConfig.from_pretrained(str(GAUDI_CONFIG)).to_dict()


def test_gaudi_config_file_uses_only_keys_of_this_gaudi_config():
    keys = set(json.loads(GAUDI_CONFIG.read_text()))
    assert keys <= set(GaudiConfig().to_dict())
    assert not [key for key in keys if key.startswith("hmp")]


def test_training_ran_the_asked_steps(trained):
    metrics, state = trained.metrics, trained.trainer.state
    assert state.global_step == metrics["steps"] == PRETRAIN["max_steps"]
    logged = [entry["step"] for entry in state.log_history if "loss" in entry]
    assert logged == list(range(1, PRETRAIN["max_steps"] + 1))
    assert [entry["step"] for entry in state.log_history if "eval_loss" in entry] == [2, 4]
    assert metrics["backend"] == "hpu" and metrics["world_size"] == 1
    batch = PRETRAIN["per_device_train_batch_size"] * PRETRAIN["gradient_accumulation_steps"]
    assert metrics["global_batch_size"] == batch
    assert metrics["train_samples_per_second"] > 0
    checkpoints = sorted(path.name for path in (trained.folder / "checkpoints").glob("*/checkpoint-*"))
    assert checkpoints == ["checkpoint-2", "checkpoint-4"]


def test_logged_loss_is_the_mean_token_cross_entropy(trained):
    """An untrained model's loss is about ln(vocabulary), not that times the gradient accumulation steps."""
    uniform = math.log(trained.trainer.model.config.vocab_size)
    assert 0.5 * uniform < trained.metrics["initial_loss"] < 1.5 * uniform
    assert 0.5 * uniform < trained.metrics["final_eval_loss"] < 1.5 * uniform


def test_saved_model_loads_with_auto_classes_and_fill_mask(trained):
    out = trained.folder / "model"
    model = AutoModelForMaskedLM.from_pretrained(out)
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert type(model) is BertForMaskedLM
    assert model.config.vocab_size == len(tokenizer)
    assert (model.config.hidden_size, model.config.num_hidden_layers) == (32, 1)
    assert json.loads((out / "training_metrics.json").read_text()) == trained.metrics
    filled = pipeline("fill-mask", model=str(out), top_k=3)(f"the library {tokenizer.mask_token} at nine.")
    assert len(filled) == 3 and all(0 <= guess["score"] <= 1 for guess in filled)


def test_rerun_resumes_from_the_newest_complete_checkpoint(trained, tiny_data, tmp_path, monkeypatch):
    shutil.copytree(trained.folder / "checkpoints", tmp_path / "checkpoints")
    [run] = [path for path in (tmp_path / "checkpoints").iterdir() if path.is_dir()]
    shutil.rmtree(run / "checkpoint-4")  # as if the job was killed after its checkpoint at step 2
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    metrics = run_pretrain(tiny_data, tmp_path)
    assert metrics["resumed_from"] == str(run / "checkpoint-2")
    assert metrics["steps"] == PRETRAIN["max_steps"]


class SignalAfterFirstStep(TrainerCallback):
    """Sends this process SIGUSR1 at the end of step 1, before that step's stop agreement (added before it)."""

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == 1:
            signal.raise_signal(signal.SIGUSR1)


def test_a_signal_stops_gaudi_trainer_at_a_complete_checkpoint_and_the_rerun_ends_bit_identical(
    trained, tiny_data, tmp_path, monkeypatch
):
    def build_trainer(*args, **kwargs):
        trainer = trainers.build_trainer(*args, **kwargs)
        trainer.add_callback(SignalAfterFirstStep())
        return trainer

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with monkeypatch.context() as patch:
        patch.setattr(pretrain_script, "build_trainer", build_trainer)
        with pytest.raises(StoppedOnRequest, match=r"stopped on request \(SIGUSR1\) at step 1: checkpoint saved"):
            run_pretrain(tiny_data, tmp_path)
    [saved] = (tmp_path / "checkpoints").glob("*/checkpoint-*")
    assert saved.name == "checkpoint-1" and (saved / COMPLETE_FILE).exists()
    metrics = run_pretrain(tiny_data, tmp_path)
    assert metrics["resumed_from"].endswith("checkpoint-1")
    assert metrics["segments"] == [{"first_step": 1, "last_step": 1}, {"first_step": 2, "last_step": 4}]
    weights = [(folder / "model/model.safetensors").read_bytes() for folder in (trained.folder, tmp_path)]
    assert weights[0] == weights[1]


def test_on_device_arguments_are_fields_of_gaudi_training_arguments(tiny_data, monkeypatch, tmp_path):
    """On a Gaudi the same call asks for HPU, lazy mode, our Gaudi config and bf16, with names 1.18.1 knows.
    (The real classes set up the device when created, so they are recorded here instead of created.)"""
    import optimum.habana

    created = {}

    def record(name):
        def create(**kwargs):
            created[name] = kwargs
            return name

        return create

    class RecordedTrainer:
        def __init__(self, **kwargs):
            created["trainer"] = kwargs
            self.args = SimpleNamespace(train_batch_size=4, gradient_accumulation_steps=2, world_size=1)

        def remove_callback(self, callback):
            created["removed"] = callback

        def add_callback(self, callback):
            created["added"] = callback

    monkeypatch.setattr(optimum.habana, "GaudiTrainingArguments", record("args"))
    monkeypatch.setattr(optimum.habana, "GaudiTrainer", RecordedTrainer)
    settings = {**PRETRAIN, "shuffle_seed": 34}
    phase = plan_phases(settings, 16)[0]
    job = dataclasses.replace(hpu_job(tiny_data, tmp_path), on_device=True)
    trainers.build_trainer(job, settings, phase, str(tmp_path / "run"), None, (None, None), None, None)
    args = created["args"]
    assert set(args) <= {field.name for field in dataclasses.fields(GaudiTrainingArguments)}
    assert (args["use_habana"], args["use_lazy_mode"], args["use_cpu"], args["bf16"]) == (True, True, False, True)
    assert args["gaudi_config_name"] == str(GAUDI_CONFIG)
    assert args["throughput_warmup_steps"] == PRETRAIN["throughput_warmup_steps"]
    assert args["dataloader_drop_last"] is True
    assert created["trainer"]["args"] == "args"
    assert type(created["trainer"]["gaudi_config"]) is GaudiConfig
    assert created["removed"] is PrinterCallback and type(created["added"]) is ProgressLog


def test_every_training_step_of_the_gaudi_trainer_creates_the_same_shapes(trained):
    """The model as GaudiTrainer holds it, stepped by GaudiTrainer.training_step on batches of different content
    and special-token counts: the op-by-op shape log (forward and backward) must not change."""
    trainer = trained.trainer
    loader = iter(trainer.get_train_dataloader())
    batches = [next(loader) for _ in range(3)]
    crowded = batches[0]["input_ids"].clone()
    crowded[:, ::2] = trainer.data_collator.special_ids[3]
    items = [{"ids": row.numpy().astype("uint16"), "block": index, "epoch": 0} for index, row in enumerate(crowded)]
    batches.append(trainer.data_collator(items))
    assert not torch.equal(batches[3]["labels"], batches[0]["labels"])
    logs = [training_step_shapes(trainer, batch) for batch in batches]
    assert len(logs[0]) > 100 and any("backward" in op for op, _ in logs[0])
    assert changed_ops(logs) == []


def test_calibration_times_a_burst_of_the_gaudi_trainer(tiny_data, tmp_path):
    """GaudiTrainer's own training loop honours the evaluation and checkpoint the burst asks for at its steps."""
    burst = {"warmup_steps": 2, "steps": 4, "price_per_node_hour": None}
    result = calibration.calibrate(hpu_job(tiny_data, tmp_path), str(tmp_path / "calibration.json"), burst)
    assert (result.backend, result.measured_steps, result.max_steps) == ("hpu", 4, PRETRAIN["max_steps"])
    assert result.seconds_per_step > 0 and result.seconds_per_evaluation > 0
    assert result.seconds_per_checkpoint > 0 and list((tmp_path / "checkpoints").glob("*")) == []
    assert json.loads((tmp_path / "calibration.json").read_text()) == as_json(result)


def test_a_continued_roberta_base_trains_through_gaudi_trainer_with_one_shape(roberta_data, tmp_path):
    """Continued pretraining on the HPU path: GaudiTrainer starts from a RoBERTa base's weights, steps with one set of
    shapes, and saves a RoBERTa masked LM."""
    model = {**dict.fromkeys(schema_defaults("model")), "init_from": str(roberta_data.base)}
    job = dataclasses.replace(hpu_job(roberta_data, tmp_path), model=model)
    metrics, [trainer] = spied_pretrain(job, tmp_path)
    assert isinstance(trainer, GaudiTrainer) and trainer.model.config.model_type == "roberta"
    assert metrics["steps"] == PRETRAIN["max_steps"] and metrics["init_from"] == str(roberta_data.base)
    batches = list(itertools.islice(trainer.get_train_dataloader(), 3))
    assert changed_ops([training_step_shapes(trainer, batch) for batch in batches]) == []
    assert type(AutoModelForMaskedLM.from_pretrained(tmp_path / "model")).__name__ == "RobertaForMaskedLM"


PHASED = {
    **PRETRAIN,
    "save_steps": 1,
    "phases": [
        {"block_size": 8, "steps": 2, "per_device_train_batch_size": 8, "max_predictions": 2, "learning_rate": 2e-3},
        {"block_size": 16, "steps": 2},
    ],
}


def test_both_phases_train_through_gaudi_trainer_with_a_shape_each_and_resume_bit_identically(tiny_data, tmp_path):
    job = dataclasses.replace(hpu_job(tiny_data, tmp_path), pretrain=PHASED)
    metrics, built = spied_pretrain(job, tmp_path)
    assert len(built) == 2 and all(isinstance(trainer, GaudiTrainer) for trainer in built)
    assert [phase["block_size"] for phase in metrics["phases"]] == [8, 16] and metrics["steps"] == 4
    for trainer, shape in zip(built, [(8, 8), (4, 16)], strict=True):
        batches = list(itertools.islice(trainer.get_train_dataloader(), 3))
        assert {tuple(batch["input_ids"].shape) for batch in batches} == {shape}
        assert changed_ops([training_step_shapes(trainer, batch) for batch in batches]) == []
    assert [trainer.lr_scheduler.base_lrs[0] for trainer in built] == [2e-3, 1e-3]  # each phase's peak

    [run] = [path for path in (tmp_path / "checkpoints").iterdir() if path.is_dir()]
    shutil.rmtree(run / "checkpoint-4")  # as if the job was killed after its checkpoint at step 3, in phase 2
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("WORLD_SIZE", raising=False)
        patch.chdir(tmp_path)
        resumed = pretrain_script.pretrain(job, str(tmp_path / "resumed"))
    assert resumed.resumed_from == str(run / "checkpoint-3")
    weights = [(tmp_path / name / "model.safetensors").read_bytes() for name in ("model", "resumed")]
    assert weights[0] == weights[1]


@pytest.fixture
def dl1_cpus(tmp_path, monkeypatch):
    """`lscpu` answering as a DL1 node (2 sockets of 24 cores): DistributedRunner sizes MPI's mapping from it."""
    folder = tmp_path / "bin"
    folder.mkdir()
    lscpu = folder / "lscpu"
    lscpu.write_text("#!/bin/sh\nprintf 'Socket(s):            2\\nCore(s) per socket:   24\\n'\n")
    lscpu.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)


def test_mpi_launch_on_one_node_with_8_ranks(dl1_cpus):
    settings = '{"max_steps": 10, "note": "a b"}'
    args = ["--world_size", "8", "--use_mpi", "scripts/pretrain.py", "--x", "1", "--pretrain", settings]
    runner = gaudi_spawn.runner(gaudi_spawn.parse(args))
    assert type(runner) is DistributedRunner
    interpreter = shlex.split(runner._interpreter)
    assert interpreter[:9] == ["mpirun", "-n", "8", "--bind-to", "core", "--map-by", "socket:PE=6", "--rank-by", "core"]
    assert interpreter[-1] == sys.executable
    [command] = runner._commands
    assert shlex.split(command) == ["scripts/pretrain.py", "--x", "1", "--pretrain", settings]
    assert runner._model_env_vars == {"MASTER_ADDR": "localhost", "MASTER_PORT": 29500}


def test_mpi_and_deepspeed_together_are_refused(capsys):
    with pytest.raises(SystemExit) as refused:
        gaudi_spawn.parse(["--world_size", "8", "--use_mpi", "--use_deepspeed", "scripts/pretrain.py"])
    assert refused.value.code == 2
    assert "--use_mpi and --use_deepspeed exclude each other" in capsys.readouterr().err
    flags = {"world_size": 8, "hostfile": None, "master_port": 29500, "use_mpi": True, "use_deepspeed": True}
    with pytest.raises(ValueError, match="cannot be both True"):  # DistributedRunner refuses them too
        gaudi_spawn.runner(argparse.Namespace(**flags, training_script="t.py", training_script_args=[]))


def test_deepspeed_launch_across_nodes_from_a_hostfile(dl1_cpus, tmp_path):
    hostfile = tmp_path / "hostfile"
    hostfile.write_text("dl1-a slots=8\ndl1-b slots=8\n")
    args = ["--use_deepspeed", "--hostfile", str(hostfile), "--master_port", "29600", "scripts/pretrain.py"]
    runner = gaudi_spawn.runner(gaudi_spawn.parse(args))
    assert shlex.split(runner._interpreter) == [
        "deepspeed",
        "--hostfile",
        str(hostfile),
        "--master_addr",
        "dl1-a",
        "--no_local_rank",
        "--master_port",
        "29600",
    ]


@pytest.fixture
def other_nodes(tmp_path, monkeypatch):
    """Stand-ins for what a multi-node launch reaches beyond this machine: `ssh` to the other nodes (it records each
    host and fails for those listed in UNREACHABLE), and DeepSpeed's launchers `deepspeed` and `pdsh` on PATH."""
    folder = tmp_path / "nodes-bin"
    folder.mkdir()
    stand_ins = {
        "ssh": 'host="$5"; echo "$*" >> ssh-calls\n'
        'case " $UNREACHABLE " in *" $host "*) echo "Permission denied (publickey)." >&2; exit 255;; esac\n',
        "deepspeed": "exit 0\n",
        "pdsh": "exit 0\n",
    }
    for name, body in stand_ins.items():
        (folder / name).write_text(f"#!/bin/sh\n{body}")
        (folder / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "dl1-[001-004]")
    monkeypatch.setenv("UNREACHABLE", "")


def test_deepspeed_launch_across_the_slurm_jobs_nodes(dl1_cpus, other_nodes, tmp_path):
    args = gaudi_spawn.parse(["--world_size", "32", "--nodes", "4", "--use_deepspeed", "scripts/pretrain.py", "--x"])
    args.hostfile = gaudi_spawn.slurm_hostfile(args, str(tmp_path))
    assert (tmp_path / "hostfile").read_text() == "".join(f"dl1-00{node} slots=8\n" for node in range(1, 5))
    reached = [line.split() for line in (tmp_path / "ssh-calls").read_text().splitlines()]
    probe = ["-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]
    assert reached == [[*probe, f"dl1-00{node}", "true"] for node in range(1, 5)]
    interpreter = shlex.split(gaudi_spawn.runner(args)._interpreter)
    assert interpreter[:5] == ["deepspeed", "--hostfile", args.hostfile, "--master_addr", "dl1-001"]
    assert shlex.split(gaudi_spawn.runner(args)._commands[0]) == ["scripts/pretrain.py", "--x"]


def test_a_node_without_password_less_ssh_is_named_before_any_rank_starts(dl1_cpus, other_nodes, tmp_path, monkeypatch):
    monkeypatch.setenv("UNREACHABLE", "dl1-003")
    args = gaudi_spawn.parse(["--world_size", "32", "--nodes", "4", "--use_deepspeed", "scripts/pretrain.py"])
    with pytest.raises(DataError, match=r"cannot reach node dl1-003 over SSH without a password .*Permission denied"):
        gaudi_spawn.slurm_hostfile(args, str(tmp_path))
    assert not (tmp_path / "hostfile").exists()


def test_a_multi_node_launch_checks_the_allocation_and_its_flags(dl1_cpus, other_nodes, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SLURM_JOB_NODELIST", "dl1-001")  # SLURM gave one node of the four asked for
    args = gaudi_spawn.parse(["--world_size", "32", "--nodes", "4", "--use_deepspeed", "scripts/pretrain.py"])
    with pytest.raises(DataError, match=r"asked for 4 nodes, but SLURM gave this job 1 \(dl1-001\)"):
        gaudi_spawn.slurm_hostfile(args, str(tmp_path))
    for flags, error in [
        (["--world_size", "30", "--nodes", "4", "--use_deepspeed"], "not a whole number of HPUs on each of 4 nodes"),
        (["--world_size", "32", "--nodes", "4", "--use_mpi"], "several nodes need --use_deepspeed"),
    ]:
        with pytest.raises(SystemExit):
            gaudi_spawn.parse([*flags, "scripts/pretrain.py"])
        assert error in capsys.readouterr().err


def test_single_card_launch_runs_the_script_with_its_arguments_intact(dl1_cpus, tmp_path):
    script = tmp_path / "echo_args.py"
    script.write_text("import json, sys\nopen('argv.json', 'w').write(json.dumps(sys.argv[1:]))\n")
    arguments = ["--model", '{"hidden_size": 32, "name": "it\'s"}', "--out", "a folder/model"]
    assert gaudi_spawn.runner(gaudi_spawn.parse(["--world_size", "1", str(script), *arguments])).run() is None
    assert json.loads((tmp_path / "argv.json").read_text()) == arguments


@pytest.mark.parametrize("problem", ["classification", "extractive_qa"])
def test_a_fine_tuning_run_goes_through_gaudi_trainer_with_one_shape(tiny_data, tmp_path, monkeypatch, problem):
    """finetune's HPU path: GaudiTrainer on one device, inputs of one length, whole batches, the best epoch scored; a
    question-answering head's pair of start and end logits through GaudiTrainer's evaluation too."""
    from finetune_data import pair_rows, squad_articles, write_csv, write_squad
    from helpers import save_tiny_model

    import snakebert.finetune.train as finetune_train
    from snakebert.finetune.job import FinetuneJob
    from snakebert.finetune.prepare import prepare_task

    train = str(write_csv(tmp_path / "pairs.csv", pair_rows(48)))
    task = {"name": "pairs", "type": "files", "format": "csv", "train": train, "validation": None, "test": None,
            "text_column": "first", "text_pair_column": "second", "label_column": "label", "group_column": None,
            "problem": None, "metrics": None,
            "split": {"validation_fraction": 0.25, "test_fraction": 0.25, "seed": 0, "folds": None},
            "recipe": {}}  # fmt: skip
    if problem == "extractive_qa":
        squad = str(write_squad(tmp_path / "squad.json", squad_articles(12)))
        task = {**task, "format": "squad", "train": squad, "label_column": None, "problem": problem,
                "allow_unanswerable": True}  # fmt: skip
    prepare_task(task, str(tmp_path / "pairs"))
    recipe = {"learning_rate": 5e-3, "epochs": 2, "batch_size": 8, "max_length": 32, "warmup_ratio": 0.1,
              "weight_decay": 0.0}  # fmt: skip
    model = save_tiny_model(tiny_data.tokenizer, tmp_path / "model")
    job = FinetuneJob(str(tmp_path / "pairs"), "pretrained", "pretrained", model, 1, recipe, 8, 5e-3, backend="hpu",
                      checkpoints=str(tmp_path / "checkpoints"), on_device=False)  # fmt: skip
    built, build = [], finetune_train.build_trainer

    def build_trainer(*args, **kwargs):
        built.append(build(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(finetune_train, "build_trainer", build_trainer)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    result = finetune_train.finetune(job, str(tmp_path / "result.json"))
    [trainer] = built
    assert isinstance(trainer, GaudiTrainer) and type(trainer.args) is GaudiTrainingArguments
    assert trainer.args.dataloader_drop_last and isinstance(
        trainer.get_train_dataloader().batch_sampler.sampler, EpochSampler
    )
    batches = list(trainer.get_train_dataloader())
    assert {tuple(batch["input_ids"].shape) for batch in batches} == {(8, 32)}
    assert not changed_ops([training_step_shapes(trainer, batch) for batch in batches[:3]])
    metrics = {"squad_f1", "exact_match"} if problem == "extractive_qa" else {"macro_f1", "accuracy"}
    assert set(result.test) == metrics and result.best_epoch in (1.0, 2.0)
    assert json.loads((tmp_path / "result.json").read_text()) == as_json(result)
