rule build_manifest:
    input:
        blocks=corpus_shards("results/blocks/{source}/{shard}.arrow"),
        tokens=corpus_shards("results/tokens/{source}/{shard}.arrow"),
        raw=corpus_shards("results/raw/{source}/{shard}.arrow"),
        stats=corpus_shards("results/raw/{source}/{shard}.json"),
        duplicates="results/dedup/duplicates.arrow",
    output:
        "results/dataset/manifest.json",
    params:
        data=config_json("data"),
    log:
        "logs/build_manifest.log",
    conda:
        "../envs/data.yaml"
    shell:
        "python {SCRIPTS}/build_manifest.py --data {params.data:q} --duplicates {input.duplicates}"
        " --tokens {input.tokens:q} --raw {input.raw:q} --blocks {input.blocks:q} --out {output} 2> {log}"
