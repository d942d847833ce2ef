"""Fill-mask probes: the saved model's top 5 for each configured prompt, through transformers' own fill-mask pipeline
on the CPU, scored against the expected answers. How many prompts share one top-1 token exposes a model that answers
`the` to everything. The workflow imports this module (config_checks.py counts each prompt's MASK), so torch and
transformers are imported by the job alone."""

from collections import Counter

from ..errors import DataError
from .fill_mask_results import FillMaskResults, Guess, MostCommonTop1, PromptResult

MASK = "[MASK]"
TOP_K = 5


def answer_ids(tokenizer, probes: list[dict]) -> list[set[int]]:
    """Each probe's answers as token ids; a prompt that does not hold the tokenizer's mask token once, or an answer
    that is not one token of its vocabulary, is refused."""
    if not probes:
        raise DataError("config evaluate.probes: no prompts to ask")
    found = []
    for index, probe in enumerate(probes):
        prompt_ids = tokenizer(probe["prompt"])["input_ids"]
        if prompt_ids.count(tokenizer.mask_token_id) != 1:
            raise DataError(
                f"config evaluate.probes[{index}]: the prompt {probe['prompt']!r} does not hold the model's mask token "
                f"{tokenizer.mask_token!r} exactly once (it tokenizes to {tokenizer.convert_ids_to_tokens(prompt_ids)})"
            )
        ids = set()
        for answer in probe["answers"]:
            tokens = tokenizer(answer, add_special_tokens=False)["input_ids"]
            if len(tokens) != 1 or tokens[0] == tokenizer.unk_token_id:
                raise DataError(
                    f"config evaluate.probes[{index}]: the answer {answer!r} is not one token of the model's "
                    f"vocabulary (it tokenizes to {tokenizer.convert_ids_to_tokens(tokens)})"
                )
            ids.add(tokens[0])
        found.append(ids)
    return found


def hit_rate(hits: list[bool | None]) -> float | None:
    scored = [hit for hit in hits if hit is not None]
    return sum(scored) / len(scored) if scored else None


def fill_mask_probes(model_dir: str, probes: list[dict], threads: int = 0) -> FillMaskResults:
    """The top 5 of `pipeline("fill-mask")` for each of `probes` ({prompt, answers}), hits, hit rates and the most
    common top-1 token; `threads`: torch's CPU threads (0: its default)."""
    import torch
    from transformers import AutoTokenizer, pipeline

    from .model import load_masked_lm

    if threads:
        torch.set_num_threads(threads)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    expected = answer_ids(tokenizer, probes)
    fill = pipeline("fill-mask", model=load_masked_lm(model_dir), tokenizer=tokenizer, device="cpu", top_k=TOP_K)
    results = []
    for probe, answers in zip(probes, expected, strict=True):
        predictions = fill(probe["prompt"])
        ids = [prediction["token"] for prediction in predictions]
        results.append(
            PromptResult(
                prompt=probe["prompt"],
                answers=tuple(probe["answers"]),
                predictions=tuple(Guess(prediction["token_str"], prediction["score"]) for prediction in predictions),
                hit_top1=ids[0] in answers if answers else None,
                hit_top5=bool(answers.intersection(ids)) if answers else None,
            )
        )
    top1 = Counter(result.predictions[0].token for result in results)
    token, prompts = top1.most_common(1)[0]
    return FillMaskResults(
        top_k=TOP_K,
        probes=tuple(results),
        answered=sum(bool(probe["answers"]) for probe in probes),
        hit_rate_top1=hit_rate([result.hit_top1 for result in results]),
        hit_rate_top5=hit_rate([result.hit_top5 for result in results]),
        distinct_top1=len(top1),
        most_common_top1=MostCommonTop1(token, prompts),
    )
