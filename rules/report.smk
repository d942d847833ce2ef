rule plot_data:
    input:
        manifest=MANIFEST_FILE,
        tokens=corpus_shards("results/tokens/{source}/{shard}.arrow"),
    output:
        report(
            REPORT_FILES["data"],
            caption="../report/data.rst",
            category="Data",
        ),
    log:
        "logs/plot_data.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("plot_data.py"),
        code=code("plot_data.py"),
        arguments=arguments_file({"--": "tokens"}),
    shell:
        "python {params.script} --manifest {input.manifest} --out {output} --arguments-file {params.arguments}"
        " > {log} 2>&1"


rule plot_training:
    input:
        model=MODEL_FOLDER,
        metrics=EVAL_METRICS,
    output:
        report(
            REPORT_FILES["training"],
            caption="../report/training.rst",
            category="Pretraining",
        ),
    log:
        "logs/plot_training.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("plot_training.py"),
        code=code("plot_training.py"),
    shell:
        "python {params.script} --model {input.model} --eval-metrics {input.metrics} --out {output} > {log} 2>&1"


rule plot_downstream:
    input:
        metrics=finetune_metrics(),
    output:
        report(
            REPORT_FILES["downstream"],
            caption="../report/downstream.rst",
            category="Downstream",
        ),
    log:
        "logs/plot_downstream.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("plot_downstream.py"),
        code=code("plot_downstream.py"),
        arguments=arguments_file({"--": "metrics"}),
    shell:
        "python {params.script} --out {output} --arguments-file {params.arguments} > {log} 2>&1"


rule report_summary:
    input:
        manifest=MANIFEST_FILE,
        model=MODEL_FOLDER,
        metrics=EVAL_METRICS,
        probes=fill_mask_targets(),
        finetune=finetune_metrics(),
    output:
        report(
            REPORT_FILES["summary"],
            caption="../report/summary.rst",
            category="Summary",
        ),
    log:
        "logs/report_summary.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("report_summary.py"),
        code=code("report_summary.py"),
        calibration=CALIBRATION_FILE,  # read when it exists; not an input, so never waited for
        arguments=arguments_file({"--finetune": "finetune", "--": "probes"}),
    shell:
        "python {params.script} --manifest {input.manifest} --model {input.model}"
        " --eval-metrics {input.metrics} --calibration {params.calibration} --out {output}"
        " --arguments-file {params.arguments} > {log} 2>&1"
