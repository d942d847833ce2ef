rule push_to_hub:
    input:
        unpack(hub_uploads),
    output:
        "results/hub/pushed.json",
    log:
        "logs/push_to_hub.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("push_to_hub.py"),
        code=code("push_to_hub.py"),
        hub=section_settings("hub"),
        arguments=arguments_file({"--uploads": hub_uploads_json}),
    shell:
        "python {params.script} --hub {params.hub} --arguments-file {params.arguments} --out {output} > {log} 2>&1"
