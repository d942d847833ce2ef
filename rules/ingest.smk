rule ingest_shard:
    input:
        shard_files,
    output:
        shard="results/raw/{source}/{shard}.arrow",
        stats="results/raw/{source}/{shard}.json",
    params:
        source=source_json,
        clean=config_json("clean"),
        index=shard_index,
    log:
        "logs/ingest_shard/{source}/{shard}.log",
    benchmark:
        "benchmarks/ingest_shard/{source}/{shard}.tsv"
    conda:
        "../envs/data.yaml"
    shell:
        "python {SCRIPTS}/ingest.py --source {params.source:q} --clean {params.clean:q}"
        " --shard {params.index} --out {output.shard} --stats {output.stats} {input:q} 2> {log}"


rule find_duplicates:
    input:
        corpus_shards("results/raw/{source}/{shard}.arrow"),
    output:
        "results/dedup/duplicates.arrow",
    params:
        disabled="" if config["clean"]["dedup"] else "--disabled",
    log:
        "logs/find_duplicates.log",
    benchmark:
        "benchmarks/find_duplicates.tsv"
    conda:
        "../envs/data.yaml"
    shell:
        "python {SCRIPTS}/dedup.py {params.disabled} --out {output} {input:q} > {log} 2>&1"
