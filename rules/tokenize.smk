rule tokenize_shard:
    input:
        shard="results/raw/{source}/{shard}.arrow",
        tokenizer="results/tokenizer",
        duplicates="results/dedup/duplicates.arrow",
    output:
        "results/tokens/{source}/{shard}.arrow",
    log:
        "logs/tokenize_shard/{source}/{shard}.log",
    benchmark:
        "benchmarks/tokenize_shard/{source}/{shard}.tsv"
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("tokenize_shard.py"),
        code=code("tokenize_shard.py"),
    shell:
        "RAYON_NUM_THREADS={threads} python {params.script} --tokenizer {input.tokenizer}"
        " --duplicates {input.duplicates} --out {output} {input.shard} > {log} 2>&1"


rule pack_shard:
    input:
        "results/tokens/{source}/{shard}.arrow",
    output:
        "results/blocks/{source}/{shard}.arrow",
    log:
        "logs/pack_shard/{source}/{shard}.log",
    benchmark:
        "benchmarks/pack_shard/{source}/{shard}.tsv"
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("pack_blocks.py"),
        code=code("pack_blocks.py"),
        block_size=config["data"]["block_size"],
    shell:
        "python {params.script} --block-size {params.block_size} --out {output} {input} > {log} 2>&1"
