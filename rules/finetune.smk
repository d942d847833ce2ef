wildcard_constraints:
    task=r"[A-Za-z0-9][A-Za-z0-9_-]*",
    model=r"[A-Za-z0-9][A-Za-z0-9_-]*",
    seed=r"\d+",
    rate=r"lr-[0-9.e+-]+|chosen",
    fold=r"(fold-\d+/)?",  # a fold's path segment (split.folds), empty without folds


rule prepare_task:
    input:
        task_files,
    output:
        directory(TASK_DATA),
    log:
        "logs/finetune/{task}/prepare_task.log",
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("prepare_task.py"),
        code=code("prepare_task.py"),
        task=task_settings,
    shell:
        "python {params.script} --task {params.task} --out {output} > {log} 2>&1"


rule finetune:
    input:
        data=TASK_DATA,
        model=finetune_model_inputs,
        chosen=finetune_chosen_rate,
        tracking=ancient(TRACKING_FILE),
    output:
        RUN_FILE,
    log:
        "logs/finetune/{task}/{model}/{rate}/{fold}seed-{seed}.log",
    benchmark:
        "benchmarks/finetune/{task}/{model}/{rate}/{fold}seed-{seed}.tsv"
    conda:
        "../envs/pipeline.yaml"
    threads: 1
    resources:
        **DEVICE_RESOURCES,
    params:
        script=script("finetune.py"),
        code=code("finetune.py"),
        data=FOLD_DATA,
        kind=finetune_model_kind,
        source=finetune_model_source,
        rate=finetune_rate_argument,
        recipe=run_recipe_settings,
        eval_batch_size=config["finetune"]["eval_batch_size"],
        backend=finetune_backend,
        checkpoints=os.path.join(finetune_plan.CHECKPOINTS, "{task}", "{model}", "{rate}", "{fold}seed-{seed}"),
        gaudi_config=GAUDI_CONFIG,
    shell:
        "python {params.script} --task-dir {params.data} --name {wildcards.model} --kind {params.kind}"
        " --source {params.source:q} --seed {wildcards.seed} {params.rate} --recipe {params.recipe}"
        " --eval-batch-size {params.eval_batch_size} --backend {params.backend} --checkpoints {params.checkpoints}"
        " --gaudi-config {params.gaudi_config:q} --tracking {input.tracking}"
        " --tracking-dir logs/tracking/finetune/{wildcards.task}/{wildcards.model}/{wildcards.rate}/{wildcards.fold}seed-{wildcards.seed}"
        " --threads {threads} --out {output} > {log} 2>&1"


rule choose_rate:
    input:
        data=TASK_DATA,
        search=finetune_search_runs,
    output:
        CHOSEN_FILE,
    log:
        "logs/finetune/{task}/{model}/choose_rate.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("choose_rate.py"),
        code=code("choose_rate.py"),
        task_file=TASK_FILE,
        arguments=arguments_file({"--learning-rates": learning_rates_json, "--search": "search"}),
    shell:
        "python {params.script} --task {input.data}/{params.task_file} --arguments-file {params.arguments} --out {output}"
        " > {log} 2>&1"


rule linear_probe:
    input:
        data=TASK_DATA,
        model=finetune_model_inputs,
    output:
        finetune_plan.linear_probe_runs("{task}", config["finetune"], "{model}", "{fold}"),
    log:
        "logs/finetune/{task}/{model}/{fold}linear_probe.log",
    benchmark:
        "benchmarks/finetune/{task}/{model}/{fold}linear_probe.tsv"
    conda:
        "../envs/pipeline.yaml"
    threads: 4
    params:
        script=script("linear_probe.py"),
        code=code("linear_probe.py"),
        data=FOLD_DATA,
        kind=finetune_model_kind,
        source=finetune_model_source,
        max_length=linear_probe_max_length,
        batch_size=config["finetune"]["eval_batch_size"],
        arguments=arguments_file({"--out": linear_probe_outputs}),
    shell:
        "python {params.script} --task {params.data} --name {wildcards.model} --kind {params.kind}"
        " --source {params.source:q} --max-length {params.max_length} --batch-size {params.batch_size}"
        " --threads {threads} --arguments-file {params.arguments} > {log} 2>&1"


rule finetune_baselines:
    input:
        TASK_DATA,
    output:
        BASELINES_FILE,
    log:
        "logs/finetune/{task}/{fold}finetune_baselines.log",
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("finetune_baselines.py"),
        code=code("finetune_baselines.py"),
        data=FOLD_DATA,
    shell:
        "python {params.script} --task {params.data} --out {output} > {log} 2>&1"


rule summarize_finetune:
    input:
        data=TASK_DATA,
        runs=finetune_runs,
        chosen=finetune_chosen_rates,
        linear_probes=linear_probe_runs,
        baselines=baseline_results,
    output:
        METRICS_FILE,
    log:
        "logs/finetune/{task}/summarize_finetune.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("summarize_finetune.py"),
        code=code("summarize_finetune.py"),
        task_file=TASK_FILE,
        arguments=arguments_file(
            {
                "--baselines": "baselines",
                "--learning-rates": learning_rates_json,
                "--runs": "runs",
                "--chosen": "chosen",
                "--linear-probes": "linear_probes",
            }
        ),
    shell:
        "python {params.script} --task {input.data}/{params.task_file} --arguments-file {params.arguments} --out {output}"
        " > {log} 2>&1"
