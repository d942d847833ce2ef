rule train_tokenizer:
    input:
        tokenizer_base_files(),
        shards=corpus_shards("results/raw/{source}/{shard}.arrow"),
        stats=corpus_shards("results/raw/{source}/{shard}.json"),
        duplicates="results/dedup/duplicates.arrow",
    output:
        directory("results/tokenizer"),
    log:
        "logs/train_tokenizer.log",
    benchmark:
        "benchmarks/train_tokenizer.tsv"
    conda:
        "../envs/pipeline.yaml"
    threads: 8
    params:
        script=script("train_tokenizer.py"),
        code=code("train_tokenizer.py"),
        tokenizer=config_json("tokenizer"),
    shell:
        "RAYON_NUM_THREADS={threads} python {params.script} --tokenizer {params.tokenizer:q}"
        " --duplicates {input.duplicates} --raw {input.shards:q} --stats {input.stats:q} --out {output} > {log} 2>&1"
