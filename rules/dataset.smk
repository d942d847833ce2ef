rule build_manifest:
    input:
        blocks=corpus_shards("results/blocks/{source}/{shard}.arrow"),
        tokens=corpus_shards("results/tokens/{source}/{shard}.arrow"),
        raw=corpus_shards("results/raw/{source}/{shard}.arrow"),
        stats=corpus_shards("results/raw/{source}/{shard}.json"),
        duplicates="results/dedup/duplicates.arrow",
    output:
        "results/dataset/manifest.json",
    log:
        "logs/build_manifest.log",
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("build_manifest.py"),
        code=code("build_manifest.py"),
        data=config_json("data"),
    shell:
        "python {params.script} --data {params.data:q} --duplicates {input.duplicates}"
        " --tokens {input.tokens:q} --raw {input.raw:q} --blocks {input.blocks:q} --out {output} 2> {log}"
