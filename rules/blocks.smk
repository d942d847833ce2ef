rule tokenize_shard:
    input:
        shard=text_shard,
        tokenizer="results/tokenizer",
        duplicates="results/dedup/duplicates.arrow",
    output:
        tokens="results/tokens/{source}/{shard}.arrow",
        stats="results/tokens/{source}/{shard}.json",
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
        " --duplicates {input.duplicates} --out {output.tokens} --stats {output.stats} {input.shard} > {log} 2>&1"


rule pack_shard:
    input:
        "results/tokens/{source}/{shard}.arrow",
    output:
        blocks="results/{packing}/{source}/{shard}.arrow",
        stats="results/{packing}/{source}/{shard}.json",
    log:
        "logs/pack_shard/{packing}/{source}/{shard}.log",
    benchmark:
        "benchmarks/pack_shard/{packing}/{source}/{shard}.tsv"
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("pack_shard.py"),
        code=code("pack_shard.py"),
        block_size=packing_block_size,
    shell:
        "python {params.script} --block-size {params.block_size} --out {output.blocks} --stats {output.stats}"
        " {input} > {log} 2>&1"
