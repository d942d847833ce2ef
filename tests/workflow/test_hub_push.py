"""Publishing to the Hub: off by default, token from the environment only, never in argv, logs or outputs (nor a
tracker's token, nor the training histories)."""

from helpers import planned_jobs, snakemake, training_config

SECRET = "hf_testSecretTokenThatMustNotLeak"
TRACKER_SECRETS = {
    "WANDB_API_KEY": "wandbSecretKeyThatMustNotLeak",
    "MLFLOW_TRACKING_TOKEN": "mlflowSecretThatMustNotLeak",
}
HUB = {
    "push": True,
    "tokenizer_repo": "someone/sotu-tokenizer",
    "dataset_repo": "someone/sotu-blocks",
    "model_repo": "someone/sotu-bert",
}


def test_push_is_off_by_default(workdir):
    assert "push_to_hub" not in planned_jobs(workdir, training_config(workdir))


def test_push_waits_for_the_parts_it_publishes_and_their_cards(workdir):
    config = training_config(workdir, hub={"push": True, "model_repo": "someone/sotu-bert"})
    jobs = planned_jobs(workdir, config, "results/hub/pushed.json")
    assert jobs["pretrain"] == jobs["model_card"] == 1 and "dataset_card" not in jobs
    config = training_config(workdir, hub={"push": True, "dataset_repo": "someone/sotu-blocks"})
    jobs = planned_jobs(workdir, config, "results/hub/pushed.json")
    assert jobs["dataset_card"] == 1 and "pretrain" not in jobs and "model_card" not in jobs
    config = training_config(workdir, hub={"push": True, "tokenizer_repo": "someone/sotu-tokenizer"})
    assert planned_jobs(workdir, config, "results/hub/pushed.json") == {
        "find_duplicates": 1,
        "ingest_shard": 4,
        "push_to_hub": 1,
        "train_tokenizer": 1,
    }


def test_token_reaches_neither_commands_nor_logs_nor_outputs(workdir, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", SECRET)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    for name, value in TRACKER_SECRETS.items():
        monkeypatch.setenv(name, value)
    config = training_config(workdir, hub=HUB, finetune={"seeds": 1})  # every kind of job, each run once
    plan = snakemake(workdir, "-n", "-p", config=config)
    assert "push_to_hub.py" in plan.stdout
    done = snakemake(workdir, config=config, check=False)
    assert done.returncode != 0
    log = (workdir / "logs/push_to_hub.log").read_text()
    assert "could not push the tokenizer to Hub repository 'someone/sotu-tokenizer'" in log
    assert not (workdir / "results/hub/pushed.json").exists()
    assert all((workdir / f"results/cards/{part}/README.md").is_file() for part in ("model", "dataset"))
    written = [path for path in workdir.rglob("*") if path.is_file()]
    assert any("tfevents" in path.name for path in written)  # the histories are among the files searched
    for secret in (SECRET, *TRACKER_SECRETS.values()):
        assert all(secret.encode() not in path.read_bytes() for path in written)
        assert secret not in plan.stdout + plan.stderr + done.stdout + done.stderr
