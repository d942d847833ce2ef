"""The code the workflow's jobs run (scripts/ holds one command line per rule, each calling in here): data
ingestion, tokenization and packing (snakebert.data), pretraining and evaluation (snakebert.training), the report
(snakebert.report) and the Hub upload. It is found next to the Snakefile, never installed."""
