rule train_tokenizer:
    input:
        shards=corpus_shards("results/raw/{source}/{shard}.arrow"),
        stats=corpus_shards("results/raw/{source}/{shard}.json"),
        duplicates="results/dedup/duplicates.arrow",
    output:
        directory("results/tokenizer"),
    params:
        settings=config_json("tokenizer"),
    threads: 8
    log:
        "logs/train_tokenizer.log",
    benchmark:
        "benchmarks/train_tokenizer.tsv"
    conda:
        "../envs/data.yaml"
    shell:
        "RAYON_NUM_THREADS={threads} python {SCRIPTS}/train_tokenizer.py --settings {params.settings:q}"
        " --duplicates {input.duplicates} --out {output} {input.shards:q} 2> {log}"
