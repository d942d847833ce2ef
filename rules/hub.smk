rule push_to_hub:
    input:
        tokenizer="results/tokenizer",
        manifest="results/dataset/manifest.json",
        blocks=corpus_shards("results/blocks/{source}/{shard}.arrow"),
    output:
        "results/hub/pushed.json",
    log:
        "logs/push_to_hub.log",
    localrule: True
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("push_to_hub.py"),
        settings=config_json("hub"),
    shell:
        "python {params.script} --settings {params.settings:q} --tokenizer {input.tokenizer}"
        " --results results --out {output} 2> {log}"
