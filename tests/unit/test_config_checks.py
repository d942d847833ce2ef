"""The config's checks beyond the schema (snakebert/config_checks.py): each refusal names its keys, in the order the
workflow reports them, and the shipped configs pass."""

import copy
import shutil

import pytest
import yaml
from helpers import REPO

from snakebert.config_checks import (
    config_problems,
    finetune_problems,
    local_revision_problems,
    model_problems,
    non_finite,
    phase_problems,
    prompt_problems,
    task_source_problems,
)
from snakebert.config_defaults import schema_defaults
from snakebert.config_validation import validate_config
from snakebert.data.manifest import DATA_SECTIONS, data_config_digest
from snakebert.finetune.plan import task_recipe
from snakebert.training.backends import backend_problems

SOURCE = {"name": "notes", "type": "files", "paths": ["corpus/notes.jsonl"], "format": "jsonl"}


def shipped(name: str = "config.yaml") -> dict:
    config = yaml.safe_load((REPO / "config" / name).read_text())
    validate_config(config)
    return config


@pytest.fixture(scope="module")
def default_config() -> dict:
    return shipped()


def with_changes(config: dict, *changes: tuple[tuple, object]) -> dict:
    changed = copy.deepcopy(config)
    for path, value in changes:
        parent = changed
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = value
    return changed


@pytest.mark.parametrize("name", ["config.yaml", "bert-base-dl1.yaml", "bert-base-dl1-tutorial.yaml"])
def test_the_shipped_configs_pass(name):
    assert config_problems(shipped(name)) == []


def test_non_finite_names_every_infinite_or_nan_number():
    value = {"a": 1.0, "b": {"c": float("inf"), "d": [0.5, float("nan")]}, "e": [{"f": float("-inf")}], "g": "nan"}
    assert non_finite(value) == ["b.c", "b.d[1]", "e[0].f"]


def test_a_non_finite_number_is_reported_alone(default_config):
    config = with_changes(
        default_config,
        (("pretrain", "mlm_probability"), float("nan")),  # would break the phase check's arithmetic
        (("sources", 0, "shard_mb"), float("inf")),
        (("model", "hidden_size"), 33),
    )
    assert config_problems(config) == [
        "config sources[0].shard_mb: a finite number is needed",
        "config pretrain.mlm_probability: a finite number is needed",
    ]


NON_FINITE = [
    (("pretrain", "weight_decay"), float("inf"), "pretrain.weight_decay"),
    (("pretrain", "mlm_probability"), float("nan"), "pretrain.mlm_probability"),
    (("pretrain", "max_grad_norm"), float("inf"), "pretrain.max_grad_norm"),
    (("model", "hidden_dropout_prob"), float("nan"), "model.hidden_dropout_prob"),
    (("sources", 0, "shard_mb"), float("inf"), "sources[0].shard_mb"),
]


@pytest.mark.parametrize(("path", "value", "key"), NON_FINITE, ids=[key for _, _, key in NON_FINITE])
def test_a_non_finite_number_passes_the_schema_and_is_refused_naming_the_key(path, value, key):
    """As the workflow reads a config: the schema lets an infinite or NaN number through, the check beyond it names
    its key."""
    config = with_changes({"sources": [SOURCE], "model": {}, "pretrain": {}}, (path, value))
    validate_config(config)
    assert config_problems(config) == [f"config {key}: a finite number is needed"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            [(("evaluate", "probes"), [{"prompt": "no mask here", "answers": ["a"]}])],
            "config evaluate.probes[0]: the prompt 'no mask here' has 0 [MASK], exactly one is needed",
        ),
        (
            [(("model", "hidden_size"), 33)],
            "config model.hidden_size (33) is not a multiple of model.num_attention_heads (2)",
        ),
        (
            [(("pretrain", "corruption"), {"mask": 0.8, "random": 0.1, "keep": 0.2})],
            "config pretrain.corruption: mask, random and keep add up to 1.1, not 1",
        ),
        (
            [(("finetune", "recipe", "max_length"), 1024)],
            "recipe max_length 1024 is larger than model.max_position_embeddings (512)",
        ),
        (
            [(("sources",), [{"name": "a", "type": "embedded"}, {"name": "a", "type": "embedded"}])],
            "config sources: name 'a' is used twice",
        ),
        (
            [(("data", "block_size"), 600), (("tokenizer", "model_max_length"), 1024)],
            "config data.block_size (600) is larger than model.max_position_embeddings (512)",
        ),
        (
            [(("data", "block_size"), 300), (("tokenizer", "model_max_length"), 256)],
            "config data.block_size (300) is larger than tokenizer.model_max_length (256)",
        ),
        (
            [(("clean", "near_dedup", "bands"), 15)],
            "config clean.near_dedup: bands x rows (15 x 8 = 120) is larger than hashes (112)",
        ),
        (
            [(("clean", "languages"), ["en", "xx"])],
            "config clean.languages: 'xx' is not a language py3langid identifies (it knows: ace, af, am, an,",
        ),
        (
            [(("hub", "push"), True)],
            "config hub.push is true but none of hub.tokenizer_repo, hub.dataset_repo, hub.model_repo is set",
        ),
    ],
)
def test_each_refusal_names_its_keys(default_config, changes, message):
    problems = config_problems(with_changes(default_config, *changes))
    assert problems and message in problems[0], problems


def test_a_hub_push_with_a_repository_passes(default_config):
    assert config_problems(with_changes(default_config, (("hub", "push"), True), (("hub", "model_repo"), "a/b"))) == []


def test_problems_come_in_the_order_the_workflow_reports_them(default_config):
    config = with_changes(
        default_config,
        (("model", "hidden_size"), 33),
        (("hub", "push"), True),
        (("sources",), [{"name": "a", "type": "embedded"}] * 2),
    )
    problems = config_problems(config)
    assert [problem.split(" ")[1] for problem in problems] == ["model.hidden_size", "sources:", "hub.push"]


def test_a_prompt_needs_exactly_one_mask_when_the_workflow_is_parsed():
    probes = [{"prompt": "one [MASK] ."}, {"prompt": "no mask ."}, {"prompt": "[MASK] and [MASK] ."}]
    assert prompt_problems(probes) == [
        "config evaluate.probes[1]: the prompt 'no mask .' has 0 [MASK], exactly one is needed",
        "config evaluate.probes[2]: the prompt '[MASK] and [MASK] .' has 2 [MASK], exactly one is needed",
    ]


def test_a_width_that_the_heads_do_not_divide_is_a_problem():
    assert model_problems({"hidden_size": 33, "num_attention_heads": 2}) == [
        "config model.hidden_size (33) is not a multiple of model.num_attention_heads (2)"
    ]
    assert model_problems({"hidden_size": 128, "num_attention_heads": 2}) == []


def test_modernbert_is_a_problem_on_the_hpu_backend_only():
    modern = {"architecture": "modernbert"}
    assert backend_problems(modern, "hpu") == [
        "config model.architecture 'modernbert' is not supported on the hpu backend (the Gaudi 1 stack, "
        "optimum-habana 1.18, has no validated path for it): use bert or roberta or xlm-roberta there"
    ]
    assert backend_problems(modern, "cuda") == backend_problems({"architecture": "bert"}, "hpu") == []
    assert backend_problems({"architecture": "roberta"}, "hpu") == []


def test_a_phase_longer_than_the_positions_and_a_split_that_is_not_whole_are_refused():
    settings = {**schema_defaults("pretrain"), "max_steps": 1000}
    long = [{"block_size": 1024, "steps": 1000}]
    assert phase_problems({**settings, "phases": long}, 512, 512) == [
        "config pretrain.phases[0].block_size (1024) is larger than model.max_position_embeddings (512)"
    ]
    split = {"mask": 0.8, "random": 0.1, "keep": 0.2}
    assert phase_problems({**settings, "corruption": split}, 512, 512) == [
        "config pretrain.corruption: mask, random and keep add up to 1.1, not 1"
    ]


def test_finetune_names_that_collide_a_hub_task_without_data_and_a_search_past_the_seeds_are_refused(default_config):
    finetune = copy.deepcopy(default_config["finetune"])
    task = {**finetune["tasks"][0], "name": "t"}
    finetune["tasks"] = [task, task, {**task, "name": "g", "type": "hub", "preset": None, "path": None}]
    finetune["compare"] = [{"name": "random", "model": "a"}, {"name": "x", "model": "b"}, {"name": "x", "model": "c"}]
    finetune["search_seeds"] = finetune["seeds"] + 1
    assert finetune_problems(finetune, 512) == [
        f"config finetune.search_seeds ({finetune['seeds'] + 1}) is more than finetune.seeds ({finetune['seeds']})",
        "config finetune.tasks: name 't' is used twice",
        "config finetune.compare[0]: name 'random' is reserved for the results' own rows",
        "config finetune.compare[1]: name 'x' is used twice",
        "config finetune.compare[2]: name 'x' is used twice",
        "config finetune.tasks[2] (g): a hub task needs `path` or a `preset`",
    ]


def test_metrics_of_the_other_kind_of_problem_are_refused_before_any_job(default_config):
    finetune = copy.deepcopy(default_config["finetune"])
    files = {"name": "scores", "type": "files", "train": "scores.csv", "problem": "regression", "metrics": ["accuracy"],
             "preset": None, "split": {"folds": None, "test_fraction": 0}, "recipe": {}}  # fmt: skip
    finetune["tasks"] = [
        files,
        {**files, "name": "kinds", "problem": None, "metrics": ["macro_f1", "pearson"]},
        {**files, "name": "sts", "type": "hub", "preset": "glue/stsb", "problem": None, "metrics": ["matthews"]},
        {**files, "name": "fine", "metrics": ["spearman", "pearson"]},
    ]
    assert [problem for problem in finetune_problems(finetune, 512) if "metric" in problem] == [
        "config finetune.tasks[0] (scores): metric 'accuracy' does not measure a regression task; use pearson or "
        "spearman",
        "config finetune.tasks[1] (kinds): metric 'pearson' does not measure a classification task; use a metric of "
        "classes (accuracy, macro_f1, f1, matthews)",
        "config finetune.tasks[2] (sts): metric 'matthews' does not measure a regression task; use pearson or spearman",
    ]


def test_word_tagging_settings_on_another_problem_are_refused_before_any_job(default_config):
    finetune = copy.deepcopy(default_config["finetune"])
    files = {"name": "tags", "type": "files", "train": "tags.conll", "format": "conll", "problem": None,
             "metrics": None, "tag_scheme": None, "text_pair_column": None, "preset": None, "label_column": "label",
             "split": {"folds": None, "test_fraction": 0}, "recipe": {}}  # fmt: skip
    finetune["tasks"] = [
        files,
        {**files, "name": "schemed", "format": "csv", "tag_scheme": "iob2"},
        {**files, "name": "paired", "format": "jsonl", "problem": "token_classification", "text_pair_column": "b"},
        {**files, "name": "fine", "problem": "token_classification", "tag_scheme": "iobes"},
        {**files, "name": "ner", "type": "hub", "preset": "conll2003", "format": None, "metrics": ["accuracy"]},
    ]
    assert [
        problem for problem in finetune_problems(finetune, 512) if "tag" in problem or "metric" in problem
    ] == [  # fmt: skip
        "config finetune.tasks[0] (tags): format conll holds tagged words; set problem: token_classification",
        "config finetune.tasks[1] (schemed): tag_scheme is for tagged words; set problem: token_classification, or "
        "drop tag_scheme",
        "config finetune.tasks[2] (paired): a token_classification task tags the words of one text; drop "
        "text_pair_column",
        "config finetune.tasks[4] (ner): metric 'accuracy' does not measure a token_classification task; use a "
        "metric of tags (entity_f1, entity_precision, entity_recall, token_accuracy)",
    ]


def test_question_answering_settings_on_another_problem_are_refused_before_any_job(default_config):
    finetune = copy.deepcopy(default_config["finetune"])
    files = {"name": "qa", "type": "files", "train": "qa.json", "format": "squad", "problem": None, "metrics": None,
             "tag_scheme": None, "text_pair_column": None, "preset": None, "allow_unanswerable": None,
             "split": {"folds": None, "test_fraction": 0}, "recipe": {}}  # fmt: skip
    finetune["tasks"] = [
        files,
        {**files, "name": "v2", "format": "jsonl", "label_column": "answers", "allow_unanswerable": True},
        {**files, "name": "cells", "format": "csv", "label_column": "answers", "problem": "extractive_qa"},
        {**files, "name": "squad", "type": "hub", "preset": "squad_v2", "format": None},
        {**files, "name": "fine", "problem": "extractive_qa", "allow_unanswerable": False},
        {**files, "name": "unlabelled", "format": "jsonl", "label_column": None},  # only a SQuAD file names its labels
    ]
    finetune["protocols"] = ["finetune", "linear_probe"]
    assert [problem for problem in finetune_problems(finetune, 512) if "tasks[" in problem] == [
        "config finetune.tasks[0] (qa): format squad holds questions and answers; set problem: extractive_qa",
        "config finetune.tasks[1] (v2): allow_unanswerable is for questions; set problem: extractive_qa, or drop "
        "allow_unanswerable",
        "config finetune.tasks[2] (cells): an extractive_qa file is format squad (SQuAD JSON), jsonl or parquet (the "
        "Hub's squad rows)",
        "config finetune.tasks[5] (unlabelled): label_column is needed: the column of a jsonl file's labels",
    ]  # tasks 3 and 4 are sound, the linear probe among the protocols


def test_a_compared_folder_without_a_tokenizer_or_positions_for_the_inputs_is_refused(
    default_config, roberta_base, tmp_path
):
    """Read from the folders' files alone: no tokenizer file; a RoBERTa model whose usable positions (its rows less
    the 2 its numbering reserves) are one short of the task's inputs; a config.json that is not JSON."""
    from transformers import RobertaConfig, RobertaForMaskedLM

    finetune = copy.deepcopy(default_config["finetune"])
    length = task_recipe(finetune, finetune["tasks"][0])["max_length"]
    tokenizer = ("tokenizer.json", "tokenizer_config.json")
    tiny = {"vocab_size": 400, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
            "intermediate_size": 64, "pad_token_id": 1, "type_vocab_size": 1}  # roberta_base's 400 tokens  # fmt: skip
    for name, rows in {"bare": length + 2, "short": length + 1, "fits": length + 2}.items():
        RobertaForMaskedLM(RobertaConfig(max_position_embeddings=rows, **tiny)).save_pretrained(tmp_path / name)
        for file in tokenizer if name != "bare" else ():
            shutil.copy(f"{roberta_base}/{file}", tmp_path / name / file)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{not json")
    finetune["compare"] = [
        {"name": name, "model": str(tmp_path / name)} for name in ("bare", "short", "fits", "broken")
    ]
    problems = finetune_problems(finetune, 512)
    assert problems[0] == (
        f"config finetune.compare[0].model {str(tmp_path / 'bare')!r}: the folder holds no tokenizer (none of "
        "tokenizer.json, tokenizer_config.json, vocab.txt, vocab.json, spiece.model, sentencepiece.bpe.model, "
        "spm.model, sentencepiece.model, tokenizer.model); save the model's tokenizer into it beside the weights "
        "(tokenizer.save_pretrained)"
    )
    assert problems[1] == (
        f"config finetune.compare[1].model {str(tmp_path / 'short')!r}: its inputs hold at most {length - 1} "
        f"positions, fewer than the recipe max_length {length} of finetune.tasks[0] "
        f"({finetune['tasks'][0]['name']}); lower the task's max_length"
    )
    assert problems[2].startswith(f"config finetune.compare[3].model {str(tmp_path / 'broken')!r}: cannot read")
    assert len(problems) == 3


def test_a_revision_beside_a_local_folder_is_refused_for_a_source_and_a_task(default_config, tmp_path):
    config = copy.deepcopy(default_config)
    hub = {"name": "local", "type": "hub", "path": str(tmp_path), "revision": "v2"}
    config["sources"] = [*config["sources"], hub]
    config["finetune"]["tasks"] = [{**config["finetune"]["tasks"][0], **hub, "name": "t", "preset": None}]
    assert local_revision_problems(config) == [
        f"config {key}.revision: 'v2' names a version of a Hub data set, but path {str(tmp_path)!r} is a local folder, "
        "which has none: drop the revision"
        for key in (f"sources[{len(config['sources']) - 1}]", "finetune.tasks[0]")
    ]
    config["sources"][-1]["path"] = "someone/corpus"  # a Hub id: its revision is the Hub's
    assert len(local_revision_problems(config)) == 1


def test_the_data_config_digest_follows_the_data_sections_only(default_config):
    digest = data_config_digest(default_config)
    assert digest == data_config_digest(with_changes(default_config, (("pretrain", "max_steps"), 7)))
    for section in DATA_SECTIONS:
        changed = with_changes(default_config, ((section,), [default_config[section]]))
        assert data_config_digest(changed) != digest, section
    assert len(digest) == 64


def test_folds_beside_a_test_split_of_the_tasks_own_or_a_test_fraction_are_refused(default_config):
    finetune = copy.deepcopy(default_config["finetune"])
    folded = {"validation_fraction": 0.1, "test_fraction": 0, "seed": 0, "folds": 5}
    files = {"name": "f", "type": "files", "train": "a.csv", "test": "b.csv", "split": folded, "recipe": {}}
    hub = {"name": "g", "type": "hub", "preset": "glue/rte", "path": None, "test_split": None, "split": folded,
           "recipe": {}}  # fmt: skip
    embedded = {**finetune["tasks"][0], "name": "e", "split": {**folded, "test_fraction": 0.15}}
    finetune["tasks"] = [files, {**files, "name": "ok", "test": None}, hub, embedded]
    assert finetune_problems(finetune, 512) == [
        "config finetune.tasks[0] (f): split.folds tests each fold of train in turn, so it cannot be used beside a "
        "test split of the task's own (`test`): drop split.folds, or give the task no test split",
        "config finetune.tasks[2] (g): split.folds tests each fold of train in turn, so it cannot be used beside a "
        "test split of the task's own (`preset`): drop split.folds, or give the task no test split",
        "config finetune.tasks[3] (e): split.folds makes the test splits, so split.test_fraction must be 0 "
        "(it is 0.15)",
    ]


def test_a_task_source_names_a_task_of_finetune_with_a_train_split_of_its_own(default_config):
    tasks = copy.deepcopy(default_config["finetune"]["tasks"])
    folded = {**tasks[0], "name": "folded", "split": {**tasks[0]["split"], "test_fraction": 0, "folds": 3}}
    named = ("party", "nope", "folded")
    sources = [SOURCE, *({"name": f"text-{task}", "type": "task", "task": task} for task in named)]
    assert task_source_problems(sources, [*tasks, folded]) == [
        "config sources[2] ('text-nope'): task 'nope' is not among finetune.tasks (party, names, folded)",
        "config sources[3] ('text-folded'): task 'folded' uses split.folds, so every example is in some fold's test "
        "split and no train text is held out of all of them; drop split.folds or the source",
    ]
    config = with_changes(default_config, (("sources",), sources[:2]))
    assert config_problems(config) == []
