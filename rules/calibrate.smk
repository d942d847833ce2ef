rule calibrate:
    input:
        **training_inputs(),
    output:
        CALIBRATION_FILE,
    log:
        "logs/calibrate.log",
    conda:
        "../envs/pipeline.yaml"
    threads: 8
    resources:
        **DEVICE_RESOURCES,
    params:
        **training_params("calibrate.py", "checkpoints/calibrate"),
        calibration=section_settings("calibrate"),
    shell:
        training_command("--nodes {params.plan.node_count} --calibration {params.calibration}")
