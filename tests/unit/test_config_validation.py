"""The config's validation: the schema's defaults filled in, and refusals that name the key and never show a secret or
a huge value."""

import json

import pytest
import yaml

from snakebert.config_defaults import schema_defaults
from snakebert.config_validation import MAX_VALUES, ConfigError, normalise_integers, secret_like, validate_config
from snakebert.redaction import SHOWN_CHARS

SOURCE = {"name": "notes", "type": "files", "paths": ["corpus/notes.jsonl"], "format": "jsonl"}
TOKEN = "hf_" + "Q" * 34  # a Hub token's shape


def refusal(config: dict) -> str:
    with pytest.raises(ConfigError) as refused:
        validate_config(config)
    return str(refused.value)


def test_every_default_is_filled_in_nested_sections_too():
    config = {"sources": [SOURCE]}
    validate_config(config)
    for section in ("pretrain", "model", "evaluate", "finetune"):
        assert config[section] == schema_defaults(section)
    assert config["pretrain"]["corruption"] == {"mask": 0.8, "random": 0.1, "keep": 0.1}


@pytest.mark.parametrize(
    ("config", "path"),
    [
        ({"hub": {"push": True, "dataset_repo": "a/b", "token": TOKEN}}, "hub.token"),
        ({"sources": [{**SOURCE, "hf_token": TOKEN}]}, "sources[0].hf_token"),
        ({"finetune": {"tasks": [{"name": "t", "Api-Key": TOKEN}]}}, "finetune.tasks[0].Api-Key"),
        ({"hub": {"password": "hunter2"}}, "hub.password"),
        ({"tracking": {"WANDB_API_KEY": TOKEN}}, "tracking.WANDB_API_KEY"),
        ({"tracking": {"mlflow_tracking_token": TOKEN}}, "tracking.mlflow_tracking_token"),
    ],
)
def test_a_key_named_like_a_secret_is_refused_without_its_value(config, path):
    message = refusal({"sources": [SOURCE], **config})
    assert message.startswith(f"config {path}: a key named like a secret is refused")
    assert TOKEN not in message and "hunter2" not in message
    assert "HF_TOKEN" in message and "WANDB_API_KEY" in message  # where a Hub's or a tracker's token goes


@pytest.mark.parametrize("name", ["tokenizer", "mask_tokens", "keys", "monkey_business", "tokenizer_repo"])
def test_names_that_only_contain_a_secret_word_are_not_secrets(name):
    assert not secret_like(name)


def test_aliases_that_expand_are_refused_before_the_schema_walks_them():
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 9)]  # 9^9 values
    config = yaml.safe_load("\n".join(levels))
    message = refusal({"sources": [SOURCE], "bomb": config})
    assert message == f"config: more than {MAX_VALUES} values (YAML anchors and aliases that expand?)"


def test_a_refusal_names_the_key_and_cuts_a_long_value():
    message = refusal({"sources": [SOURCE], "data": {"block_size": "x" * 100_000}})
    assert message.startswith("config data.block_size: 'xxx")
    assert len(message) < SHOWN_CHARS + 100
    assert message.endswith(" characters)")


def test_a_token_in_any_value_is_blanked():
    message = refusal({"sources": [SOURCE], "data": {"block_size": TOKEN}})
    assert TOKEN not in message
    assert "'hf_***' is not of type 'integer'" in message


def test_a_seed_beyond_32_bits_is_refused_naming_the_key():
    message = refusal({"sources": [SOURCE], "pretrain": {"seed": 2**32}})
    assert message == "config pretrain.seed: 4294967296 is greater than the maximum of 4294967295"


ADDITIONAL = "Additional properties are not allowed"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            {"tokenizer": {"vocab": 10}},
            f"config tokenizer: {ADDITIONAL} ('vocab' was unexpected)",
            id="unknown-tokenizer-key",
        ),
        pytest.param(
            {"data": {"blocksize": 64}},
            f"config data: {ADDITIONAL} ('blocksize' was unexpected)",
            id="unknown-data-key",
        ),
        pytest.param(
            {"clean": {"strip_pattern": ["x"]}},
            f"config clean: {ADDITIONAL} ('strip_pattern' was unexpected)",
            id="unknown-clean-key",
        ),
        pytest.param(
            {"sources": [{**SOURCE, "colum": "body"}]},
            f"config sources[0]: {ADDITIONAL} ('colum' was unexpected)",
            id="unknown-source-key",
        ),
        pytest.param(
            {"data": {"block_size": "big"}},
            "config data.block_size: 'big' is not of type 'integer'",
            id="block_size-not-integer",
        ),
        pytest.param(
            {"tokenizer": {"lowercase": "yes"}},
            "config tokenizer.lowercase: 'yes' is not of type 'boolean'",
            id="lowercase-not-boolean",
        ),
        pytest.param(
            {"clean": {"strip_patterns": "[x]"}},
            "config clean.strip_patterns: '[x]' is not of type 'array'",
            id="strip_patterns-not-array",
        ),
        pytest.param(
            {"data": {"validation_fraction": 0}},
            "config data.validation_fraction: 0 is less than or equal to the minimum of 0",
            id="validation_fraction-zero",
        ),
        pytest.param(
            {"data": {"seed": -1}}, "config data.seed: -1 is less than the minimum of 0", id="data-seed-negative"
        ),
        pytest.param(
            {"finetune": {"recipe": {"learning_rate": []}}},
            "config finetune.recipe.learning_rate: [] should be non-empty",
            id="learning-rate-grid-empty",
        ),
        pytest.param(
            {"finetune": {"recipe": {"learning_rate": [1e-3, -1e-3]}}},
            "config finetune.recipe.learning_rate[1]: -0.001 is less than or equal to the minimum of 0",
            id="learning-rate-grid-negative",
        ),
        pytest.param(
            {"finetune": {"recipe": {"learning_rate": [1e-3, 1.0e-3]}}},
            "config finetune.recipe.learning_rate: [0.001, 0.001] has non-unique elements",
            id="learning-rate-grid-repeated",
        ),
        pytest.param(
            {"sources": [{"name": "text", "type": "task", "task": "party", "split": "test"}]},
            "config sources[0]: Additional properties are not allowed ('split' was unexpected)",
            id="task-source-split",
        ),
        pytest.param(
            {"finetune": {"protocols": ["probe"]}},
            "config finetune.protocols[0]: 'probe' is not one of ['finetune', 'linear_probe']",
            id="protocol-unknown",
        ),
        pytest.param(
            {"tracking": {"trackers": ["tensorbord"]}},
            "config tracking.trackers[0]: 'tensorbord' is not one of ['tensorboard', 'wandb', 'mlflow']",
            id="tracker-unknown",
        ),
        pytest.param(
            {"finetune": {"seeds": 1_000_000_000}},
            "config finetune.seeds: 1000000000 is greater than the maximum of 100",
            id="seeds-unbounded",
        ),
        pytest.param(
            {"clean": {"language_threshold": 1.5}},
            "config clean.language_threshold: 1.5 is greater than the maximum of 1",
            id="language-threshold-past-1",
        ),
        pytest.param(
            {"clean": {"quality": {"gopher_repetition": {"dup_line_frac": -0.1}}}},
            "config clean.quality.gopher_repetition.dup_line_frac: -0.1 is less than the minimum of 0",
            id="quality-threshold-below-0",
        ),
        pytest.param(
            {"clean": {"quality": {"fineweb": {"enabled": True}}}},
            f"config clean.quality: {ADDITIONAL} ('fineweb' was unexpected)",
            id="unknown-quality-rule",
        ),
        pytest.param(
            {"finetune": {"eval_batch_size": 100_000}},
            "config finetune.eval_batch_size: 100000 is greater than the maximum of 4096",
            id="eval-batch-unbounded",
        ),
    ],
)
def test_an_unknown_key_a_wrong_type_or_a_value_out_of_range_is_refused_naming_the_key(config, message):
    """The schema's refusals the workflow reports when it is read (the Snakefile calls validate_config)."""
    assert refusal({"sources": [SOURCE], **config}) == message


def test_integral_floats_are_the_integers_they_stand_for_wherever_the_schema_wants_one():
    """The issue's four (each a crash on the way: in the parse, in a job's argparse or in the trainer) and the other
    nestings of the schema: a source's if/then branch, array items, a $ref to $defs, `[integer, "null"]`."""
    party = {"name": "party", "type": "embedded", "passage_words": 20.0, "split": {"folds": 2.0, "test_fraction": 0}}
    config = {
        "sources": [SOURCE, {"name": "wiki", "type": "hub", "path": "wikipedia", "shards": 4.0}],
        "tokenizer": {"add_tokens": 5.0},
        "model": {"hidden_size": 64.0, "max_position_embeddings": 512.0},
        "pretrain": {"max_steps": 60.0, "phases": [{"block_size": 128.0, "steps": 60.0}]},
        "finetune": {"seeds": 2.0, "search_seeds": 1.0, "recipe": {"epochs": 3.0}, "tasks": [party]},
    }
    validate_config(config)
    finetune, task = config["finetune"], config["finetune"]["tasks"][0]
    found = {
        "finetune.seeds": finetune["seeds"],
        "split.folds": task["split"]["folds"],
        "pretrain.max_steps": config["pretrain"]["max_steps"],
        "tokenizer.add_tokens": config["tokenizer"]["add_tokens"],
        "sources[1].shards": config["sources"][1]["shards"],
        "phases[0].block_size": config["pretrain"]["phases"][0]["block_size"],
        "phases[0].steps": config["pretrain"]["phases"][0]["steps"],
        "model.hidden_size": config["model"]["hidden_size"],
        "finetune.search_seeds": finetune["search_seeds"],
        "recipe.epochs": finetune["recipe"]["epochs"],
        "tasks[0].passage_words": task["passage_words"],
    }
    assert {key: (type(value), value) for key, value in found.items()} == {
        key: (int, int(value)) for key, value in found.items()
    }
    assert '"max_steps": 60,' in json.dumps(config["pretrain"], sort_keys=True)  # the job's --pretrain, as the rules
    assert config["pretrain"]["learning_rate"] == 5.0e-5 and isinstance(config["model"]["initializer_range"], float)


def test_integral_floats_become_integers_in_every_nesting_a_schema_can_have():
    schema = {
        "$defs": {"count": {"type": "integer"}},
        "type": "object",
        "properties": {
            "ref": {"$ref": "#/$defs/count"},
            "either": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string"}]},
            "any": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "integer"}}]},
            "nullable": {"type": ["integer", "null"]},
            "rate": {"type": "number"},
            "fraction": {"type": "integer"},
        },
        "if": {"properties": {"ref": {"const": 1}}},
        "then": {"properties": {"size": {"type": "integer"}}},
    }
    config = {"ref": 1.0, "either": 2.0, "any": [3.0, 4.0], "nullable": 5.0, "rate": 6.0, "size": 7.0, "fraction": 0.5}
    normalise_integers(config, schema)
    assert config == {"ref": 1, "either": 2, "any": [3, 4], "nullable": 5, "rate": 6.0, "size": 7, "fraction": 0.5}
    assert [type(config[key]) for key in ("ref", "either", "nullable", "rate", "size")] == [int, int, int, float, int]
    assert [type(item) for item in config["any"]] == [int, int]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"finetune": {"seeds": 2.5}}, "config finetune.seeds: 2.5 is not of type 'integer'"),
        (
            {"pretrain": {"phases": [{"block_size": 16, "steps": 1.5}]}},
            "config pretrain.phases[0].steps: 1.5 is not of type 'integer'",
        ),
        (
            {"finetune": {"tasks": [{"name": "t", "type": "embedded", "split": {"folds": 2.5}}]}},
            "config finetune.tasks[0].split.folds: 2.5 is not of type 'integer', 'null'",
        ),
        ({"pretrain": {"max_steps": float("inf")}}, "config pretrain.max_steps: inf is not of type 'integer'"),
    ],
)
def test_a_fraction_where_an_integer_is_wanted_is_refused_naming_the_key(config, message):
    assert refusal({"sources": [SOURCE], **config}) == message


@pytest.mark.parametrize(
    ("config", "path", "parts"),
    [
        ({"tracking": {"mlflow": {"tracking_uri": f"http://{TOKEN}@mlflow.lab/"}}}, "tracking.mlflow.tracking_uri",
         "user information"),
        ({"tracking": {"mlflow": {"tracking_uri": f"https://me:{TOKEN}@mlflow.lab"}}}, "tracking.mlflow.tracking_uri",
         "user information"),
        ({"tracking": {"mlflow": {"tracking_uri": f"http://mlflow.lab/?token={TOKEN}"}}},
         "tracking.mlflow.tracking_uri", "a query"),
        ({"tracking": {"mlflow": {"tracking_uri": f"http://mlflow.lab/#{TOKEN}"}}}, "tracking.mlflow.tracking_uri",
         "a fragment"),
        ({"model": {"init_from": f"https://{TOKEN}@models.lab/bert"}}, "model.init_from", "user information"),
        ({"sources": [SOURCE, {"name": "w", "type": "hub", "path": f"https://hub.lab/d?token={TOKEN}"}]},
         "sources[1].path", "a query"),
        ({"finetune": {"compare": [{"name": "b", "model": f"https://{TOKEN}:x@hub.lab/bert?t={TOKEN}"}]}},
         "finetune.compare[0].model", "user information and a query"),
    ],
)  # fmt: skip
def test_a_url_that_can_carry_a_credential_is_refused_naming_the_key_without_its_value(config, path, parts):
    message = refusal({"sources": [SOURCE], **config})
    assert message.startswith(f"config {path}: a URL with {parts} is refused (its value is not shown")
    assert TOKEN not in message and "hf_***" not in message
    assert "MLFLOW_TRACKING_TOKEN" in message and "HF_TOKEN" in message  # where a credential goes


def test_a_cleaning_pattern_may_match_urls_with_queries():
    config = {"sources": [SOURCE], "clean": {"strip_patterns": [r"https://ads\.example/\S*\?utm=\S+"]}}
    validate_config(config)
    assert config["clean"]["strip_patterns"] == [r"https://ads\.example/\S*\?utm=\S+"]
