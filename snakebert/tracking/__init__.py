"""Live training curves, for pretraining and fine-tuning alike: the tracker table and each tracker's callback."""
