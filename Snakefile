import os

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


validate(config, "config/schema.yaml")


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/ingest.smk"
include: "rules/tokenizer.smk"
include: "rules/blocks.smk"
include: "rules/dataset.smk"
include: "rules/pretrain.smk"
include: "rules/finetune.smk"
include: "rules/calibrate.smk"
include: "rules/report.smk"
include: "rules/cards.smk"
include: "rules/hub.smk"


rule all:
    default_target: True
    input:
        final_targets(),
