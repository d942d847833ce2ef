"""What a model of the downstream results is, one table: the pretrained model, the same architecture from random
initialisation, a reference model (a `compare` model, or a continued run's base) and a baseline that needs no BERT;
the first three are what a fine-tuning or probe job starts from. metrics.json records each model's kind; the report
names the kinds (the pretrained model goes by its own name)."""

PRETRAINED, RANDOM_INIT, REFERENCE, BASELINE = "pretrained", "random_init", "reference", "baseline"
JOB_KINDS = (PRETRAINED, RANDOM_INIT, REFERENCE)  # what a job starts from
KIND_NAMES = {RANDOM_INIT: "random init", REFERENCE: "reference", BASELINE: "baseline"}  # in the report and the card
