import os
import sys

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger
from snakemake.utils import min_version

min_version("9.0")
sys.path.insert(0, workflow.basedir)  # the snakebert package, as the scripts find it

from snakebert.config_resolution import resolved_config
from snakebert.config_validation import ConfigError
from snakebert.files.tracking_settings import write_tracking_settings
from snakebert.slurm_requeue import interval_seconds, start_watching


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


try:
    config = resolved_config(config)  # validated, checked, its model resolved: once, before any job
    REQUEUE_WATCH_SECONDS = interval_seconds()
except ConfigError as error:
    raise WorkflowError(str(error)) from None
# The `tracking` section, an input of the training jobs at one path that they declare ancient: a tracker changes what
# a run reports, never what it computes, so turning one on or off reruns nothing (files/tracking_settings.py).
write_tracking_settings(config["tracking"])


report: "report/workflow.rst"


onstart:
    if workflow.executor_plugin.name == "slurm":  # a job preempted and cancelled, requeued
        start_watching(workflow.workdir_init, logger.warning, REQUEUE_WATCH_SECONDS)


include: "rules/common.smk"
include: "rules/ingest.smk"
include: "rules/tokenizer.smk"
include: "rules/blocks.smk"
include: "rules/manifest.smk"
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
