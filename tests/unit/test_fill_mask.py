"""Fill-mask probes on a tiny seeded BERT: the real fill-mask pipeline's top 5, hits, the collapse figure, and clear
errors (no output) for a prompt or answer the model's tokenizer cannot ask."""

import json
import subprocess
import sys
from collections import Counter

import pytest
from helpers import REPO, save_tiny_model
from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline

from snakebert.errors import DataError
from snakebert.report.summary import fill_mask_rows
from snakebert.training.fill_mask import answer_ids, fill_mask_probes
from snakebert.training.fill_mask_results import MostCommonTop1

PROMPTS = ["the library opens at [MASK] .", "winter storms closed the [MASK] for weeks .", "[MASK] must rest ."]
PROMPTS += ["a neglected engine [MASK] and stalls ."]


@pytest.fixture(scope="module")
def model_dir(tiny_data, tmp_path_factory):
    return save_tiny_model(tiny_data.tokenizer, tmp_path_factory.mktemp("model"))


@pytest.fixture(scope="module")
def collapsed_dir(tiny_data, tmp_path_factory):
    return save_tiny_model(tiny_data.tokenizer, tmp_path_factory.mktemp("collapsed"), the_bias=20.0)


def asked(*answers: list[str]) -> list[dict]:
    return [{"prompt": prompt, "answers": list(found)} for prompt, found in zip(PROMPTS, answers, strict=True)]


def top_tokens(model: str) -> list[list[str]]:
    return [
        [guess.token for guess in probe.predictions] for probe in fill_mask_probes(model, asked([], [], [], [])).probes
    ]


def absent(tokens: list[str]) -> str:
    """A one-token word of the tiny vocabulary that is not among `tokens`."""
    return next(token for token in ("nine", "engine", "grain", "heat", "must") if token not in tokens)


def test_predictions_are_the_fill_mask_pipelines_top_5(model_dir):
    results = fill_mask_probes(model_dir, asked([], [], [], []))
    model, tokenizer = AutoModelForMaskedLM.from_pretrained(model_dir), AutoTokenizer.from_pretrained(model_dir)
    fill = pipeline("fill-mask", model=model, tokenizer=tokenizer, top_k=5)
    assert results.top_k == 5 and [probe.prompt for probe in results.probes] == PROMPTS
    for probe in results.probes:
        expected = fill(probe.prompt)
        assert [guess.token for guess in probe.predictions] == [guess["token_str"] for guess in expected]
        probabilities = [guess.probability for guess in probe.predictions]
        assert probabilities == pytest.approx([guess["score"] for guess in expected])
        assert probabilities == sorted(probabilities, reverse=True) and 0 < sum(probabilities) <= 1
    assert fill_mask_probes(model_dir, asked([], [], [], [])) == results


def test_hits_count_an_answer_at_the_top_or_in_the_top_5(collapsed_dir):
    tops = top_tokens(collapsed_dir)  # `the` first, then words and word pieces
    runner_up = next(token for token in tops[1][1:] if not token.startswith("##"))
    results = fill_mask_probes(collapsed_dir, asked(["the"], [runner_up, absent(tops[1])], [absent(tops[2])], []))
    hits = [(probe.hit_top1, probe.hit_top5) for probe in results.probes]
    assert hits == [(True, True), (False, True), (False, False), (None, None)]
    assert results.answered == 3
    assert results.hit_rate_top1 == pytest.approx(1 / 3) and results.hit_rate_top5 == pytest.approx(2 / 3)
    unscored = fill_mask_probes(collapsed_dir, asked(["the"], [], [], []))
    assert [probe.hit_top1 for probe in unscored.probes] == [True, None, None, None]
    assert unscored.answered == 1 and unscored.hit_rate_top1 == unscored.hit_rate_top5 == 1.0
    assert fill_mask_probes(collapsed_dir, asked([], [], [], [])).hit_rate_top5 is None


def test_the_collapse_figure_counts_the_prompts_that_share_the_most_common_top_1(model_dir, collapsed_dir):
    results = fill_mask_probes(model_dir, asked([], [], [], []))
    top1 = Counter(probe.predictions[0].token for probe in results.probes)
    assert results.distinct_top1 == len(top1)
    assert results.most_common_top1 == MostCommonTop1(*top1.most_common(1)[0])
    collapsed = fill_mask_probes(collapsed_dir, asked([], [], [], []))
    assert collapsed.distinct_top1 == 1 and collapsed.most_common_top1 == MostCommonTop1("the", 4)


def test_the_summary_shows_each_prompt_its_top_5_and_the_collapse(collapsed_dir):
    tops = top_tokens(collapsed_dir)
    runner_up = next(token for token in tops[2][1:] if not token.startswith("##"))
    results = fill_mask_probes(collapsed_dir, asked(["the"], [absent(tops[1])], [runner_up], []))
    rows = dict(fill_mask_rows(results))
    first = results.probes[0].predictions
    top5 = ", ".join(f"{guess.token!r} {guess.probability:.1%}" for guess in first)
    assert rows["the library opens at [MASK] . (the)"] == f"{top5}: hit, top 1"
    assert rows[f"winter storms closed the [MASK] for weeks . ({absent(tops[1])})"].endswith(": missed")
    assert rows[f"[MASK] must rest . ({runner_up})"].endswith(": hit, top 5")
    assert rows["a neglected engine [MASK] and stalls . (-)"].endswith(": no answer given")
    assert rows["answered in the top 1 / top 5"] == "1 of 3 (33%) / 2 of 3 (67%)"
    assert rows["top-1 tokens"] == "1 distinct; 4 of 4 prompts answer 'the'"


def test_a_prompt_without_the_models_mask_token_is_refused(tiny_data):
    tokenizer = AutoTokenizer.from_pretrained(tiny_data.tokenizer)
    with pytest.raises(
        DataError, match=r"evaluate.probes\[1\]: the prompt 'the library opens at <mask> .' does not hold"
    ):
        answer_ids(
            tokenizer,
            [{"prompt": PROMPTS[0], "answers": []}, {"prompt": "the library opens at <mask> .", "answers": []}],
        )
    tokenizer.add_special_tokens({"mask_token": "<mask>"})
    with pytest.raises(DataError, match=r"evaluate.probes\[0\]: .* the model's mask token '<mask>' exactly once"):
        answer_ids(tokenizer, [{"prompt": PROMPTS[0], "answers": []}])


def test_an_answer_that_is_not_one_token_is_refused_and_leaves_no_output(model_dir, tmp_path):
    out = tmp_path / "probes.json"
    probes = [{"prompt": PROMPTS[0], "answers": ["nine"]}, {"prompt": PROMPTS[1], "answers": ["the", "library"]}]
    script = [sys.executable, str(REPO / "scripts/fill_mask_probes.py"), "--model", model_dir]
    (tmp_path / "asked.json").write_text(json.dumps(probes))
    done = subprocess.run([*script, "--probes", str(tmp_path / "asked.json"), "--out", str(out)], capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 1
    assert (
        "error: config evaluate.probes[1]: the answer 'library' is not one token of the model's vocabulary "
        "(it tokenizes to ['libr', '##ar', '##y'])"
    ) in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
    with pytest.raises(DataError, match=r"the answer 'zebra' is not one token .*\['\[UNK\]'\]"):
        answer_ids(AutoTokenizer.from_pretrained(model_dir), [{"prompt": PROMPTS[0], "answers": ["zebra"]}])
    with pytest.raises(DataError, match="evaluate.probes: no prompts to ask"):
        fill_mask_probes(model_dir, [])
