"""The checkpoint fingerprint fails safe: every setting shapes it except a named list of neutral ones, and the
Gaudi config (content and file) is part of it."""

import json

import pytest
import yaml
from helpers import save_tiny_model

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


@pytest.mark.parametrize("key", sorted(set(schema_section("model")) - {"init_from"}))
def test_each_model_setting_changes_the_fingerprint(files, key):
    model, settings = schema_defaults("model"), schema_defaults("pretrain")
    other = {**model, key: changed(schema_section("model")[key], model[key])}
    assert print_of(files, other, settings) != print_of(files, model, settings)


def test_a_base_and_each_file_of_it_change_the_fingerprint(files, tiny_data, tmp_path):
    """model.init_from: the base's files by digest (the config it builds is the base's own, in `model`)."""
    manifest, gaudi = files
    config, settings = model_config(schema_defaults("model"), Vocabulary()), {**schema_defaults("pretrain"), "seed": 1}
    base = save_tiny_model(tiny_data.tokenizer, tmp_path / "base")
    prints = [fingerprint(fingerprint_inputs(read_manifest(str(manifest)), config, settings, 1, "cpu", gaudi, name))
              for name in (None, base)]  # fmt: skip
    (tmp_path / "base" / "vocab.txt").write_text("[PAD]\n")
    prints.append(
        fingerprint(fingerprint_inputs(read_manifest(str(manifest)), config, settings, 1, "cpu", gaudi, base))
    )
    assert len(set(prints)) == 3


def test_backend_and_gaudi_config_content_change_the_fingerprint(files):
    model, settings = schema_defaults("model"), schema_defaults("pretrain")
    before = print_of(files, model, settings)
    assert print_of(files, model, settings, backend="hpu") != before
    files[1].write_text(json.dumps({**GAUDI, "use_torch_autocast": False}))
    assert print_of(files, model, settings) != before
