rule ingest_shard:
    input:
        shard_inputs,
    output:
        shard="results/raw/{source}/{shard}.arrow",
        stats="results/raw/{source}/{shard}.json",
    log:
        "logs/ingest_shard/{source}/{shard}.log",
    benchmark:
        "benchmarks/ingest_shard/{source}/{shard}.tsv"
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("ingest_shard.py"),
        code=code("ingest_shard.py"),
        index=shard_index,
        arguments=arguments_file({"--source": source_settings, "--clean": ingest_clean_settings, "--": shard_files}),
    shell:
        "python {params.script} --shard {params.index} --out {output.shard} --stats {output.stats}"
        " --arguments-file {params.arguments} > {log} 2>&1"


rule filter_shard:
    input:
        shard="results/raw/{source}/{shard}.arrow",
        stats="results/raw/{source}/{shard}.json",
    output:
        shard="results/filtered/{source}/{shard}.arrow",
        stats="results/filtered/{source}/{shard}.json",
        samples="results/filtered/{source}/{shard}.samples.json",
    log:
        "logs/filter_shard/{source}/{shard}.log",
    benchmark:
        "benchmarks/filter_shard/{source}/{shard}.tsv"
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("filter_shard.py"),
        code=code("filter_shard.py"),
        settings=filter_settings,
    shell:
        "python {params.script} --settings {params.settings} --raw-stats {input.stats} --out {output.shard}"
        " --stats {output.stats} --samples {output.samples} {input.shard} > {log} 2>&1"


rule minhash_shard:
    input:
        text_shard,
    output:
        SIGNATURE_FILE,
    log:
        "logs/minhash_shard/{source}/{shard}.log",
    benchmark:
        "benchmarks/minhash_shard/{source}/{shard}.tsv"
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("minhash_shard.py"),
        code=code("minhash_shard.py"),
        settings=near_dedup_settings,
    shell:
        "python {params.script} --settings {params.settings} --out {output} {input} > {log} 2>&1"


rule find_duplicates:
    input:
        raw=corpus_text_files(".arrow"),
        signatures=near_dedup_signatures,
    output:
        duplicates="results/dedup/duplicates.arrow",
        samples="results/dedup/duplicate_samples.json",
    log:
        "logs/find_duplicates.log",
    benchmark:
        "benchmarks/find_duplicates.tsv"
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("find_duplicates.py"),
        code=code("find_duplicates.py"),
        disabled="" if config["clean"]["dedup"] else "--disabled",
        arguments=arguments_file({"--signatures": "signatures", "--": "raw"}),
    shell:
        "python {params.script} {params.disabled} --out {output.duplicates} --samples {output.samples}"
        " --arguments-file {params.arguments} > {log} 2>&1"
