"""Pretraining and evaluation: the training backends, the block dataset and its order, masking, the model, the
pre-flight checks, checkpoints and progress."""
