rule pretrain:
    input:
        **training_inputs(),
    output:
        directory(MODEL_FOLDER),
    log:
        "logs/pretrain.log",
    benchmark:
        "benchmarks/pretrain.tsv"
    conda:
        "../envs/pipeline.yaml"
    threads: 8
    resources:
        **DEVICE_RESOURCES,
    params:
        **training_params("pretrain.py", "checkpoints/pretrain"),
    shell:
        training_command("--tracking-dir logs/tracking/pretrain")


rule evaluate:
    input:
        model=MODEL_FOLDER,
        manifest=MANIFEST_FILE,
    output:
        EVAL_METRICS,
    log:
        "logs/evaluate.log",
    conda:
        "../envs/pipeline.yaml"
    threads: 8
    params:
        script=script("evaluate.py"),
        code=code("evaluate.py"),
        evaluate=evaluation_settings,
    shell:
        "python {params.script} --model {input.model} --manifest {input.manifest} --evaluate {params.evaluate}"
        " --threads {threads} --out {output} > {log} 2>&1"


rule fill_mask_probes:
    input:
        model=MODEL_FOLDER,
    output:
        FILL_MASK_RESULTS,
    log:
        "logs/fill_mask_probes.log",
    conda:
        "../envs/pipeline.yaml"
    threads: 2
    params:
        script=script("fill_mask_probes.py"),
        code=code("fill_mask_probes.py"),
        probes=fill_mask_prompts,
    shell:
        "python {params.script} --model {input.model} --probes {params.probes:q} --threads {threads} --out {output}"
        " > {log} 2>&1"
