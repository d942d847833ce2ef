rule build_manifest:
    input:
        tokenizer="results/tokenizer",
        raw=corpus_text_files(".arrow"),
        raw_stats=corpus_text_files(".json"),
        token_stats=corpus_shards("results/tokens/{source}/{shard}.json"),
        blocks=corpus_shards("results/blocks/{source}/{shard}.arrow"),
        block_stats=corpus_shards("results/blocks/{source}/{shard}.json"),
        phase_blocks=phase_packings("arrow"),
        phase_block_stats=phase_packings("json"),
    output:
        MANIFEST_FILE,
    log:
        "logs/build_manifest.log",
    conda:
        "../envs/pipeline.yaml"
    params:
        script=script("build_manifest.py"),
        code=code("build_manifest.py"),
        data=section_settings("data"),
        config_digest=data_config_digest,
        phase_sizes=phase_block_sizes,
        arguments=arguments_file(
            {
                "--raw": "raw",
                "--raw-stats": "raw_stats",
                "--token-stats": "token_stats",
                "--blocks": "blocks",
                "--block-stats": "block_stats",
                "--phase-blocks": "phase_blocks",
                "--phase-block-stats": "phase_block_stats",
            }
        ),
    shell:
        "python {params.script} --data {params.data} --config-digest {params.config_digest}"
        " --tokenizer {input.tokenizer} --phase-sizes {params.phase_sizes} --arguments-file {params.arguments}"
        " --out {output} > {log} 2>&1"
