rule calibrate:
    input:
        manifest="results/dataset/manifest.json",
        tokenizer="results/tokenizer",
        blocks=corpus_shards("results/blocks/{source}/{shard}.arrow"),
        gaudi_config=GAUDI_CONFIG,
    output:
        "results/calibration.json",
    log:
        "logs/calibrate.log",
    conda:
        "../envs/pipeline.yaml"
    threads: 8
    resources:
        **DEVICE_RESOURCES,
    params:
        launch=launch_command,
        backend=training_backend,
        world_size=planned_world_size,
        nodes=planned_nodes,
        script=script("calibrate.py"),
        code=code("calibrate.py"),
        model=config_json("model"),
        settings=config_json("pretrain"),
        calibration=config_json("calibrate"),
        checkpoints="checkpoints/calibrate",
    shell:
        "{params.launch} {params.script} --backend {params.backend} --world-size {params.world_size}"
        " --nodes {params.nodes} --manifest {input.manifest} --tokenizer {input.tokenizer} --model {params.model:q}"
        " --settings {params.settings:q} --calibration {params.calibration:q} --checkpoints {params.checkpoints}"
        " --gaudi-config {input.gaudi_config:q} --threads {threads} --out {output} > {log} 2>&1"
