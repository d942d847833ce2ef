"""A fine-tuning job as the tests run it: the pretrained model's seed 1 at one rate of the grid, on the CPU."""

from snakebert.finetune.job import FinetuneJob


def cpu_job(task_dir, model: str, folder, recipe: dict, **overrides) -> FinetuneJob:
    """The job of the prepared task in `task_dir`, its checkpoints in `folder`, `overrides` over its fields."""
    settings = {"task_dir": str(task_dir), "name": "pretrained", "kind": "pretrained", "model": model, "seed": 1,
                "recipe": recipe, "rate": "lr-0.005", "eval_batch_size": 8, "backend": "cpu",
                "checkpoints": str(folder / "checkpoints"), **overrides}  # fmt: skip
    return FinetuneJob(**settings)
