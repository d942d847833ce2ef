"""The code the workflow's jobs run (scripts/ holds one command line per rule, each calling in here), found next to
the Snakefile, never installed; docs/development.md names every module.

Subpackages: snakebert.files (the pipeline's own files: atomic writes, checksums, Arrow streams, JSON files, the
token and block format), snakebert.data (sources and file formats, cleaning, deduplication, the tokenizer, token
shards, packing, the manifest and its typed view), snakebert.training (backends, the block dataset, masking and
the batch collator, phases, the model, trainers, checkpoints, stops, calibration, evaluation, probes),
snakebert.launch (a training job's launch plan, SLURM allocations, the launchers over mpirun and torchrun),
snakebert.tracking (the trackers a training run reports to, pretraining and fine-tuning alike), snakebert.finetune
(task types, splits, the runs, the rates chosen, the linear probe, metrics, baselines, intervals, the summary),
snakebert.report (the report's figures and summary table) and snakebert.cards (the model and data set cards).

Top-level modules: config_validation (the config against the schema), config_checks (every check beyond it),
config_defaults (the schema's defaults for code run outside the workflow), code_digest (edited code reruns its jobs),
errors (bad input, a stopped run, the command-line guard), named_loading (a tokenizer or model named by config),
machine (the machine a result names), slurm_requeue (preempted SLURM jobs requeued) and hub (the Hub upload)."""
