rule push_to_hub:
    input:
        tokenizer="results/tokenizer",
        manifest="results/dataset/manifest.json",
        blocks=corpus_shards("results/blocks/{source}/{shard}.arrow"),
    output:
        "results/hub/pushed.json",
    params:
        settings=config_json("hub"),
    localrule: True
    log:
        "logs/push_to_hub.log",
    conda:
        "../envs/data.yaml"
    shell:
        "python {SCRIPTS}/push_to_hub.py --settings {params.settings:q} --tokenizer {input.tokenizer}"
        " --results results --out {output} 2> {log}"
