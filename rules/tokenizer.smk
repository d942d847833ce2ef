if config["model"]["init_from"]:

    rule keep_tokenizer:
        input:
            model_base_files(),
            raw=corpus_text_files(".arrow") if ADD_TOKENS else [],
            duplicates="results/dedup/duplicates.arrow" if ADD_TOKENS else [],
        output:
            directory("results/tokenizer"),
        log:
            "logs/keep_tokenizer.log",
        conda:
            "../envs/pipeline.yaml"
        params:
            script=script("keep_tokenizer.py"),
            code=code("keep_tokenizer.py"),
            base=init_from,
            arguments=arguments_file(ADDED_WORDS_CORPUS),
        shell:
            "python {params.script} --base {params.base:q} --arguments-file {params.arguments} --out {output}"
            " > {log} 2>&1"

else:

    rule train_tokenizer:
        input:
            tokenizer_base_files(),
            raw=corpus_text_files(".arrow"),
            stats=corpus_text_files(".json"),
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
            tokenizer=section_settings("tokenizer"),
            arguments=arguments_file({"--raw": "raw", "--stats": "stats"}),
        shell:
            "RAYON_NUM_THREADS={threads} python {params.script} --tokenizer {params.tokenizer}"
            " --duplicates {input.duplicates} --arguments-file {params.arguments} --out {output} > {log} 2>&1"
