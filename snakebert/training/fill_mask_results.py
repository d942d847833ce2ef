"""The fill-mask probes' results (results/eval/probes.json): each configured prompt's top 5, whether an expected
answer is among them, the hit rates and the most common top-1 token. fill_mask_probes (fill_mask.py) makes them,
write_fill_mask_results writes them, and the report reads them (read_fill_mask_results), as one typed view."""

from dataclasses import dataclass

from ..files.json_files import write_json
from ..files.json_views import as_json, built, read_view

FILL_MASK_RESULTS = "results/eval/probes.json"


@dataclass(frozen=True)
class Guess:
    token: str
    probability: float


@dataclass(frozen=True)
class PromptResult:
    """One prompt: its expected answers, the model's top 5 and whether an answer is first or among them (None: no
    answer given)."""

    prompt: str
    answers: tuple[str, ...]
    predictions: tuple[Guess, ...]
    hit_top1: bool | None
    hit_top5: bool | None


@dataclass(frozen=True)
class MostCommonTop1:
    """The top-1 token most prompts share, and how many do (a collapsed model answers one token to all)."""

    token: str
    prompts: int


@dataclass(frozen=True)
class FillMaskResults:
    top_k: int
    probes: tuple[PromptResult, ...]
    answered: int  # the prompts with an expected answer
    hit_rate_top1: float | None  # None: no prompt has an answer
    hit_rate_top5: float | None
    distinct_top1: int
    most_common_top1: MostCommonTop1

    @classmethod
    def from_json(cls, data: dict) -> "FillMaskResults":
        prompts = tuple(
            built(
                PromptResult,
                prompt,
                answers=tuple(prompt["answers"]),
                predictions=tuple(built(Guess, guess) for guess in prompt["predictions"]),
            )
            for prompt in data["probes"]
        )
        return built(cls, data, probes=prompts, most_common_top1=built(MostCommonTop1, data["most_common_top1"]))


def write_fill_mask_results(path: str, results: FillMaskResults) -> None:
    write_json(path, as_json(results))


def read_fill_mask_results(path: str) -> FillMaskResults:
    """The fill-mask probes' results at `path`; one of another version or program is refused, naming the key at
    fault."""
    return read_view(path, "probes file", FillMaskResults)
