"""Fine-tuning on downstream tasks: task readers and splits, metrics, baselines, the fine-tuning runs and their
summary (the model beside random initialisation, reference models and baselines)."""
