"""Pretraining and evaluation: the training backends, the block dataset and its order, masking, phases, the model,
the trainers, the pre-flight checks, checkpoints, stops and progress, calibration, evaluation and the fill-mask
probes, and the files they write."""
