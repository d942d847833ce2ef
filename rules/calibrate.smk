rule calibrate:
    input:
        **training_inputs(),
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
        **training_params("calibrate.py", "checkpoints/calibrate"),
        nodes=planned_nodes,
        calibration=config_json("calibrate"),
    shell:
        "{params.launch} {params.script} --backend {params.backend} --world-size {params.world_size}"
        " --manifest {input.manifest} --tokenizer {input.tokenizer} --model {params.model:q}"
        " --settings {params.settings:q} --evaluation {params.evaluation:q} --checkpoints {params.checkpoints}"
        " --gaudi-config {input.gaudi_config:q}"
        " --threads {threads} --out {output} --nodes {params.nodes} --calibration {params.calibration:q}"
        " > {log} 2>&1"
