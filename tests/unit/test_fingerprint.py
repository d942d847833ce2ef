"""The checkpoint fingerprint fails safe: every setting shapes it except a named list of neutral ones, and the
Gaudi config (content and file) is part of it."""

import json

import pytest
import yaml

from snakebert.config_defaults import SCHEMA, schema_defaults
from snakebert.data.manifest import read_manifest
from snakebert.training.checkpoints import fingerprint
from snakebert.training.model import model_config
from snakebert.training.pretrain import NEUTRAL_SETTINGS, fingerprint_inputs

GAUDI = {"use_fused_adam": True, "use_fused_clip_norm": True, "use_torch_autocast": True}


class Vocabulary:
    """What model_config reads of a tokenizer."""

    pad_token_id, cls_token_id, sep_token_id = 0, 2, 3

    def __len__(self) -> int:
        return 200


@pytest.fixture
def files(tiny_data, tmp_path):
    """The tiny data set's manifest (read only) and a Gaudi config of this test's own."""
    gaudi = tmp_path / "gaudi_config.json"
    gaudi.write_text(json.dumps(GAUDI))
    return tiny_data.manifest, gaudi


def print_of(files, model: dict, settings: dict, backend: str = "cpu") -> str:
    manifest, gaudi = files
    config = model_config(model, Vocabulary())
    settings = {**settings, "shuffle_seed": 34}
    inputs = fingerprint_inputs(read_manifest(str(manifest)), config, settings, 1, backend, gaudi)
    return fingerprint(inputs)


def changed(spec: dict, value):
    """Another valid value for a setting of this schema entry."""
    if "enum" in spec:
        return next(option for option in spec["enum"] if option != value)
    if isinstance(value, bool):
        return not value
    if value is None:
        return 10
    if "items" in spec:  # pretrain.phases
        return [*value, {"block_size": 128, "steps": 1}]
    if isinstance(value, dict):  # pretrain.corruption
        return {**value, "mask": value["mask"] / 2}
    return value + 1 if isinstance(value, int) else value * 2


def schema_section(section: str) -> dict:
    return yaml.safe_load(SCHEMA.read_text())["properties"][section]["properties"]


def test_neutral_settings_are_pretrain_settings():
    assert set(schema_section("pretrain")) >= NEUTRAL_SETTINGS


@pytest.mark.parametrize("key", sorted(schema_section("pretrain")))
def test_each_pretrain_setting_changes_the_fingerprint_unless_named_neutral(files, key):
    model, settings = schema_defaults("model"), schema_defaults("pretrain")
    spec = schema_section("pretrain")[key]
    other = {**settings, key: changed(spec, settings[key])}
    assert (print_of(files, model, other) != print_of(files, model, settings)) == (key not in NEUTRAL_SETTINGS)


@pytest.mark.parametrize("key", sorted(schema_section("model")))
def test_each_model_setting_changes_the_fingerprint(files, key):
    model, settings = schema_defaults("model"), schema_defaults("pretrain")
    other = {**model, key: changed(schema_section("model")[key], model[key])}
    assert print_of(files, other, settings) != print_of(files, model, settings)


def test_backend_and_gaudi_config_content_change_the_fingerprint(files):
    model, settings = schema_defaults("model"), schema_defaults("pretrain")
    before = print_of(files, model, settings)
    assert print_of(files, model, settings, backend="hpu") != before
    files[1].write_text(json.dumps({**GAUDI, "use_torch_autocast": False}))
    assert print_of(files, model, settings) != before
