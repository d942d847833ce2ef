"""Helpers of the tests: small corpora written on the fly, the tiny test configs (tests/configs), the tiny data set
built by the library's own functions, and real snakemake runs in a temporary working directory."""

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import torch
import yaml
from tiny_corpus import DOCS, write_text_corpus
from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

from snakebert.config_defaults import schema_defaults
from snakebert.data.dedup import find_duplicates
from snakebert.data.ingest import ingest_shard
from snakebert.data.manifest import build_manifest, write_manifest
from snakebert.data.pack import pack_shard
from snakebert.data.tokenizer import train_tokenizer
from snakebert.data.tokens import tokenize_shard
from snakebert.files.settings_files import read_settings

REPO = Path(__file__).resolve().parents[1]

CONFIGS = REPO / "tests" / "configs"
MANIFEST = "results/dataset/manifest.json"  # the data half's last output
# The cores of a test's snakemake run, and so the threads of its training jobs: 2, or 1 on each of several pytest-xdist
# workers, whose torch threads must not outnumber the cores (a 2-thread job beside another busy process runs several
# times slower). A run's weights depend on its thread count: the runs a test compares all use these.
CORES = 1 if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1 else 2
TEST_CONFIG = yaml.safe_load((CONFIGS / "tiny-data.yaml").read_text())
TINY_TRAINING = yaml.safe_load((CONFIGS / "tiny-training.yaml").read_text())
MAX_DOC_CHARS = schema_defaults("clean")["max_doc_chars"]  # the readers' bound on one document
# The training metrics and the evaluation metrics of a tiny two-phase run, as pretrain and evaluate write them
TRAINING_METRICS = {
    "backend": "cpu", "world_size": 1, "global_batch_size": 8, "steps": 60, "resumed_from": None,
    "train_runtime": 3.5, "train_samples_per_second": 137.1, "train_tokens_per_second": 2193.6,
    "initial_loss": 5.31, "final_loss": 4.87, "final_eval_loss": 4.9,
    "phases": [{"phase": 1, "block_size": 8, "first_step": 1, "last_step": 40, "global_batch_size": 16,
                "predictions_per_block": 1, "peak_learning_rate": 0.001, "trained_here": True, "train_runtime": 2.0,
                "train_samples_per_second": 320.0, "train_tokens_per_second": 2560.0},
               {"phase": 2, "block_size": 16, "first_step": 41, "last_step": 60, "global_batch_size": 8,
                "predictions_per_block": 2, "peak_learning_rate": 0.001, "trained_here": True, "train_runtime": 1.5,
                "train_samples_per_second": 106.7, "train_tokens_per_second": 1706.7}],
    "segments": [{"first_step": 1, "last_step": 60}], "init_from": None, "history": "runs",
}  # fmt: skip
EVAL_METRICS = {
    "validation_blocks": 4, "masked_tokens": 8, "mlm_loss": 4.912345678901234, "perplexity": 135.9734911,
    "masked_token_accuracy": 0.125, "chance_accuracy": 0.005, "most_frequent_token_accuracy": 0.0625,
    "masking_seed": 1234, "predictions_per_block": 2,
    "machine": {"cpu": "a CPU", "cpu_capability": "AVX2", "backend": "cpu", "accelerator": None},
}  # fmt: skip


def run_script(name: str, *args: str) -> subprocess.CompletedProcess:
    """One of scripts/ run as its rule runs it, its output captured."""
    return subprocess.run([sys.executable, str(REPO / "scripts" / name), *args], capture_output=True, text=True)


def files_source(file_format: str, text_column: str = "text") -> dict:
    """A `files` source entry as the schema fills it in."""
    return {"name": "corpus", "type": "files", "format": file_format, "text_column": text_column, "shard_mb": 64}


def raw_shard(path: Path, texts: list) -> str:
    """A text shard of `texts` at `path`, as ingest writes one (each text with its exact-duplicate hash)."""
    import pyarrow as pa

    from snakebert.data.clean import text_hashes
    from snakebert.data.ingest import SCHEMA

    texts = pa.array(texts, pa.string())
    write_arrow(path, pa.table([texts, pa.array(text_hashes(texts))], schema=SCHEMA))
    return str(path)


def write_arrow(path: Path, table, stream: bool = True, max_chunksize: int | None = None) -> Path:
    """`table` as an Arrow IPC stream (or file) at `path`."""
    import pyarrow as pa

    path.parent.mkdir(parents=True, exist_ok=True)
    opener = pa.ipc.new_stream if stream else pa.ipc.new_file
    with pa.OSFile(str(path), "wb") as sink, opener(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=max_chunksize)
    return path


def write_jsonl(path: Path, records) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def wait_all(processes: list[subprocess.Popen], timeout: float) -> list[int]:
    """Wait for every process (the ranks or nodes of one run); once one has failed, or after `timeout` seconds, kill
    the rest: a dead rank fails a multi-rank test in seconds, its peers do not wait out their rendezvous."""
    deadline = time.monotonic() + timeout
    while any(process.poll() is None for process in processes):
        failed = any(process.returncode not in (None, 0) for process in processes)
        if failed or time.monotonic() > deadline:
            for process in processes:
                if process.poll() is None:
                    process.kill()
            break
        waiting = next(process for process in processes if process.poll() is None)
        try:
            waiting.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            continue
    return [process.wait() for process in processes]


def snakemake_env() -> dict:
    """The environment for a workflow run: this interpreter's `python` first on PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def interrupting_env(folder: Path, point: str, when: int) -> dict:
    """The environment for a workflow run whose pretrain ranks run through tests/interrupt.py `point` `when`: a
    `python` written into `folder` and first on PATH puts the harness in place of scripts/pretrain.py on its command
    line, whether it starts the script itself (one rank) or through torch_spawn.py (torchrun starts the harness in
    each rank), and runs anything else as this interpreter does."""
    harness = [str(REPO / "tests/interrupt.py"), point, str(when)]
    shim = folder / "python"
    shim.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "arguments = sys.argv[1:]\n"
        "for index, argument in enumerate(arguments):\n"
        "    if argument.endswith('scripts/pretrain.py'):\n"
        f"        arguments[index : index + 1] = {harness!r}\n"
        "        break\n"
        f"os.execv({sys.executable!r}, [{sys.executable!r}, *arguments])\n"
    )
    shim.chmod(0o755)
    environment = snakemake_env()
    return {**environment, "PATH": f"{folder}{os.pathsep}{environment['PATH']}"}


def write_config(workdir: Path, config: dict) -> Path:
    """`config` as the config file of runs in `workdir` (test-config.yaml), for a command line to pass."""
    configfile = workdir / "test-config.yaml"
    configfile.write_text(yaml.safe_dump(config, sort_keys=False))
    return configfile


def snakemake(
    workdir: Path,
    *args: str,
    config: dict | None = None,
    check: bool = True,
    snakefile: Path = REPO / "Snakefile",
    env: dict | None = None,
):
    """Run the real workflow in `workdir` (with `config` merged over the default, in the environment `env`, by default
    snakemake_env()); return the finished process."""
    command = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "--cores", str(CORES), *args]
    if config is not None:
        command += ["--configfile", str(write_config(workdir, config))]
    done = subprocess.run(command, cwd=workdir, env=env or snakemake_env(), capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"snakemake failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def planned_jobs(
    workdir: Path, config: dict | None = None, *targets: str, snakefile: Path = REPO / "Snakefile"
) -> dict[str, int]:
    """{rule: job count} of what a dry run would do now ({} when nothing is to be done)."""
    output = snakemake(workdir, "-n", *targets, config=config, snakefile=snakefile)
    text = output.stdout + output.stderr
    if "Nothing to be done" in text:
        return {}
    lines = text.split("Job stats:", 1)[1].splitlines()
    jobs = {}
    for line in lines[3:]:
        fields = line.split()
        if len(fields) != 2 or fields[0] == "total":
            break
        jobs[fields[0]] = int(fields[1])
    return jobs


def two_source_config(workdir: Path, **overrides) -> dict:
    """Two `files` sources (text files, 3 shards; jsonl, 1 shard) with tiny settings."""
    write_text_corpus(workdir / "corpus" / "texts")
    write_jsonl(workdir / "corpus" / "notes.jsonl", [{"text": doc.upper(), "id": i} for i, doc in enumerate(DOCS)])
    config = {
        "sources": [
            {"name": "texts", "type": "files", "paths": ["corpus/texts/*.txt"], "format": "text", "shard_mb": 0.0006},
            {"name": "notes", "type": "files", "paths": ["corpus/notes.jsonl"], "format": "jsonl"},
        ],
        **json.loads(json.dumps(TEST_CONFIG)),
    }
    for section, values in overrides.items():
        config[section] = {**config.get(section, {}), **values}
    return config


def training_config(workdir: Path, **overrides) -> dict:
    """The two-source corpus with a tiny BERT that trains in seconds."""
    config = two_source_config(workdir)
    config.update(json.loads(json.dumps(TINY_TRAINING)))
    for section, values in overrides.items():
        config[section] = {**config.get(section, {}), **values}
    return config


PHASE_BLOCK_SIZE = 8  # the tiny data set's second packing, for a first phase of shorter blocks


def build_tiny_data(root: Path, edit_tokenizer=None) -> SimpleNamespace:
    """Two shards of the tiny corpus through the data half, as its jobs call the library (no workflow run), laid
    out as the workflow's results/ with tiny-data.yaml's settings: blocks of 16 tokens, vocabulary 200, and the
    same tokens packed in blocks of 8 (results/blocks-8). `edit_tokenizer(folder)`, if given, changes the trained
    tokenizer before the shards are tokenized."""
    settings = {section: {**schema_defaults(section), **TEST_CONFIG[section]} for section in TEST_CONFIG}
    source = {"name": "texts", "type": "files", "paths": ["corpus/*.txt"], "format": "text", "text_column": "text"}
    files = [str(path) for path in write_text_corpus(root / "corpus")]
    stages = {stage: [root / "results" / stage / "texts" / f"shard-0000{index}" for index in (0, 1)]
              for stage in ("raw", "tokens", "blocks")}  # fmt: skip
    arrow, stats = ({stage: [f"{path}{suffix}" for path in paths] for stage, paths in stages.items()}
                    for suffix in (".arrow", ".json"))  # fmt: skip
    for index, shard_files in enumerate([files[:3], files[3:]]):
        ingest_shard(source, settings["clean"], shard_files, index, arrow["raw"][index], stats["raw"][index])
    duplicates = str(root / "results/dedup/duplicates.arrow")
    find_duplicates(arrow["raw"], duplicates, enabled=settings["clean"]["dedup"])
    tokenizer = str(root / "results/tokenizer")
    train_tokenizer(arrow["raw"], stats["raw"], duplicates, settings["tokenizer"], tokenizer)
    if edit_tokenizer:
        edit_tokenizer(Path(tokenizer))
    phase_packing = []
    for index in (0, 1):
        tokenize_shard(arrow["raw"][index], tokenizer, duplicates, arrow["tokens"][index], stats["tokens"][index])
        block_size = settings["data"]["block_size"]
        pack_shard(arrow["tokens"][index], block_size, arrow["blocks"][index], stats["blocks"][index])
        phase_blocks = root / "results" / f"blocks-{PHASE_BLOCK_SIZE}" / "texts" / f"shard-0000{index}"
        phase_packing.append((f"{phase_blocks}.arrow", f"{phase_blocks}.json"))
        pack_shard(arrow["tokens"][index], PHASE_BLOCK_SIZE, *phase_packing[-1])
    manifest = root / "results/dataset/manifest.json"
    shards = zip(arrow["raw"], stats["raw"], stats["tokens"], arrow["blocks"], stats["blocks"], strict=True)
    packings = {PHASE_BLOCK_SIZE: phase_packing}
    built = build_manifest(list(shards), tokenizer, settings["data"], "tiny", str(manifest), packings)
    write_manifest(built, str(manifest))
    return SimpleNamespace(root=root, manifest=manifest, tokenizer=Path(tokenizer))


def build_continued_data(root: Path, base: str) -> SimpleNamespace:
    """The tiny data set with the tokenizer of the model folder `base` kept, as a continued run's data half keeps it
    (keep_tokenizer in place of the trained one)."""
    from snakebert.data.base_tokenizer import keep_tokenizer

    def keep(folder: Path) -> None:
        shutil.rmtree(folder)
        keep_tokenizer(base, str(folder))

    return build_tiny_data(root, edit_tokenizer=keep)


def save_tiny_roberta(folder: Path) -> str:
    """A seeded one-layer RobertaForMaskedLM with a byte-level BPE tokenizer of 400 tokens learned from the tiny
    corpus (`<s>`, `</s>`, `<mask>`, `<pad>` at 1: RoBERTa's layout), saved as a base folder: 32 usable positions, so
    34 position rows."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaForMaskedLM, RobertaTokenizer

    bpe = ByteLevelBPETokenizer()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe.train_from_iterator(DOCS, vocab_size=400, min_frequency=1, special_tokens=specials, show_progress=False)
    spec = json.loads(bpe.to_str())["model"]
    tokenizer = RobertaTokenizer(vocab=spec["vocab"], merges=[tuple(merge) for merge in spec["merges"]])
    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                           intermediate_size=64, max_position_embeddings=34, pad_token_id=tokenizer.pad_token_id,
                           type_vocab_size=1)  # fmt: skip
    RobertaForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def load_script(name: str):
    """scripts/`name`.py as a module, for testing a command line's own functions (the launcher's)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def save_tiny_model(tokenizer_dir, folder, the_bias: float = 0.0) -> str:
    """A seeded one-layer BertForMaskedLM with the tiny tokenizer, saved as pretrain saves one; `the_bias` added to
    the output bias of `the` makes a collapsed model that answers `the` to everything."""
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=32)  # fmt: skip
    model = BertForMaskedLM(config)
    with torch.no_grad():
        model.cls.predictions.bias[tokenizer.convert_tokens_to_ids("the")] += the_bias
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def workflow_sources() -> dict[Path, str]:
    """Every module of the package, every script, the Snakefile and every rule file, with its text."""
    paths = [*(REPO / "snakebert").rglob("*.py"), *(REPO / "scripts").glob("*.py"), *(REPO / "rules").glob("*.smk")]
    return {path: path.read_text() for path in [*paths, REPO / "Snakefile"]}


def spelled_elsewhere(module, names) -> dict[str, list[str]]:
    """Each of `names` that a workflow source other than `module` holds as a quoted string, and where."""
    own = Path(module.__file__).resolve()
    sources = {path: text for path, text in workflow_sources().items() if path.resolve() != own}
    found = {
        name: [str(path.relative_to(REPO)) for path, text in sources.items() if re.search(f"[\"']{name}[\"']", text)]
        for name in names
    }
    return {name: paths for name, paths in found.items() if paths}


def printed_settings(workdir: Path, printed: str, script: str, flag: str) -> dict:
    """The config section that the first command of a dry run's `printed` output running scripts/`script` hands its
    job after `flag`: a settings file, relative to the working directory `workdir`."""
    [command, *_] = [line for line in printed.splitlines() if f"scripts/{script} " in line]
    words = shlex.split(command.split(" > ", 1)[0])
    return read_settings(str(workdir / words[words.index(flag) + 1]))
