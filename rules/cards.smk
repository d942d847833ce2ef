rule model_card:
    input:
        model=MODEL_FOLDER,
        manifest=MANIFEST_FILE,
        metrics=EVAL_METRICS,
        finetune=finetune_metrics(),
    output:
        "results/cards/model/README.md",
    log:
        "logs/model_card.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("model_card.py"),
        code=code("model_card.py"),
        pretrain=section_settings("pretrain"),
        arguments=arguments_file({"--": "finetune"}),
    shell:
        "python {params.script} --model {input.model} --manifest {input.manifest} --eval-metrics {input.metrics}"
        " --pretrain {params.pretrain} --out {output} --arguments-file {params.arguments} > {log} 2>&1"


rule dataset_card:
    input:
        manifest=MANIFEST_FILE,
    output:
        "results/cards/dataset/README.md",
    log:
        "logs/dataset_card.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("dataset_card.py"),
        code=code("dataset_card.py"),
    shell:
        "python {params.script} --manifest {input.manifest} --out {output} > {log} 2>&1"
