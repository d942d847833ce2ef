"""Integer settings given as floats (`2.0`, as a JSON config or a careless edit writes them), through the real parse:
`finetune.seeds: 2.0` and `split.folds: 2.0` crashed it (a TypeError, an InputFunctionException), and
`pretrain.max_steps: 60.0` reached the trainer as a float. The validation reads each as the integer JSON Schema says it
is (tests/unit/test_config_validation.py checks every nesting); this dry run shows the jobs that come of it."""

from helpers import printed_settings, snakemake, training_config

PARTY = {"name": "party", "type": "embedded", "passage_words": 20.0, "passages_per_speech": 2.0}


def test_integer_settings_given_as_floats_plan_every_job_and_reach_the_jobs_as_integers(workdir):
    task = {**PARTY, "split": {"folds": 2.0, "test_fraction": 0}}
    config = training_config(workdir, pretrain={"max_steps": 60.0}, finetune={"seeds": 2.0, "tasks": [task]})
    done = snakemake(workdir, "-n", "-p", config=config)
    pretrain = printed_settings(workdir, done.stdout, "pretrain.py", "--pretrain")  # as the trainer reads it
    task = printed_settings(workdir, done.stdout, "prepare_task.py", "--task")
    found = [pretrain["max_steps"], task["split"]["folds"], task["passage_words"], task["passages_per_speech"]]
    assert found == [60, 2, 20, 2] and all(type(value) is int for value in found)
    for fold in (1, 2):
        for seed in (1, 2):
            assert f"results/finetune/party/runs/pretrained/lr-0.005/fold-{fold}/seed-{seed}.json" in done.stdout
