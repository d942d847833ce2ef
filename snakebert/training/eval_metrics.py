"""The held-out evaluation's results (results/eval/metrics.json): MLM loss, perplexity, masked-token accuracy, the
accuracies to set it against, how it masked and the machine it ran on. evaluate writes it (write_eval_metrics); the
report and the model card read it (read_eval_metrics), as one typed view."""

from dataclasses import dataclass

from ..files.json_files import write_json
from ..files.json_views import as_json, built, read_view

EVAL_METRICS = "results/eval/metrics.json"


@dataclass(frozen=True)
class EvalMetrics:
    validation_blocks: int
    masked_tokens: int
    mlm_loss: float
    perplexity: float
    masked_token_accuracy: float
    chance_accuracy: float
    most_frequent_token_accuracy: float
    masking_seed: int
    predictions_per_block: int
    machine: dict[str, str | None]  # machine.machine's

    @classmethod
    def from_json(cls, data: dict) -> "EvalMetrics":
        return built(cls, data, machine=dict(data["machine"]))


def write_eval_metrics(path: str, metrics: EvalMetrics) -> None:
    write_json(path, as_json(metrics))


def read_eval_metrics(path: str) -> EvalMetrics:
    """The evaluation's results at `path`; one of another version or program is refused, naming the key at fault."""
    return read_view(path, "evaluation metrics file", EvalMetrics)
