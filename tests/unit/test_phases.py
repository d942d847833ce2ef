"""The phases of a run (steps, settings, what is refused), the learning-rate schedule across them, the corruption
split of masked positions, and a calibration's projection that adds up its phases."""

import numpy as np
import pytest
import torch
from test_masking import MASK, SPECIAL, VOCAB, blocks, keys
from transformers import get_linear_schedule_with_warmup

from snakebert.config_checks import phase_problems
from snakebert.config_defaults import schema_defaults
from snakebert.errors import DataError
from snakebert.training.calibration import combined, project
from snakebert.training.masking import mask_blocks
from snakebert.training.phases import packing_sizes, plan_phases
from snakebert.training.schedule import peak_fraction, shape

SETTINGS = {**schema_defaults("pretrain"), "max_steps": 1000, "learning_rate": 1e-3, "warmup_steps": 100}
TWO = [
    {"block_size": 128, "fraction": 0.9, "per_device_train_batch_size": 64, "max_predictions": 20},
    {"block_size": 512, "fraction": 0.1, "learning_rate": 5e-4, "warmup_steps": 10},
]


def test_no_phases_is_one_phase_of_the_data_sets_blocks_for_max_steps():
    [phase] = plan_phases(SETTINGS, 512)
    assert (phase.block_size, phase.start, phase.stop, phase.learning_rate) == (512, 0, 1000, 1e-3)
    assert phase.predictions == 77 and packing_sizes(SETTINGS, 512) == []


@pytest.mark.parametrize("steps", [5, 15, 25, 1305])
def test_fractions_that_round_apart_give_the_last_phase_the_rest(steps):
    first, second = plan_phases({**SETTINGS, "max_steps": steps, "phases": TWO}, 512)
    assert first.steps == round(0.9 * steps) and first.steps + second.steps == steps and second.steps >= 1


def test_phases_split_max_steps_and_override_the_settings_they_name():
    first, second = plan_phases({**SETTINGS, "phases": TWO}, 512)
    assert (first.start, first.stop, second.start, second.stop) == (0, 900, 900, 1000)
    assert (first.per_device_train_batch_size, second.per_device_train_batch_size) == (64, 32)
    assert (first.predictions, second.predictions) == (19, 77)  # min(20, round(0.15 x 128)); no cap at 512
    assert (first.learning_rate, second.learning_rate, second.warmup_steps) == (1e-3, 5e-4, 10)
    assert packing_sizes({**SETTINGS, "phases": TWO}, 512) == [128]


@pytest.mark.parametrize(
    ("phases", "message"),
    [
        ([{"block_size": 128, "steps": 10, "fraction": 0.5}], r"pretrain.phases\[0\]: give either steps or fraction"),
        ([{"block_size": 128}], r"pretrain.phases\[0\]: give either steps or fraction"),
        ([{"block_size": 128, "fraction": 0.0001}], r"pretrain.phases\[0\]: fraction 0.0001 of max_steps 1000 is no"),
        ([{"block_size": 128, "steps": 900}], "the phases' steps add up to 900, pretrain.max_steps is 1000"),
    ],
)
def test_phases_that_do_not_make_the_run_are_refused_naming_the_key(phases, message):
    with pytest.raises(DataError, match=message):
        plan_phases({**SETTINGS, "phases": phases}, 512)
    assert phase_problems({**SETTINGS, "phases": phases}, 512, 512)[0].startswith("config pretrain.phases")


def test_the_linear_schedule_is_transformers_own_to_the_bit():
    parameter = torch.nn.Parameter(torch.zeros(1))
    reference = get_linear_schedule_with_warmup(torch.optim.SGD([parameter], lr=1.0), 100, 1000)
    [phase] = plan_phases(SETTINGS, 512)
    assert [peak_fraction(step, phase, SETTINGS) for step in range(1001)] == [
        reference.lr_lambdas[0](step) for step in range(1001)
    ]


def test_decay_shapes_end_at_the_final_fraction():
    for decay in ("linear", "cosine"):
        assert shape(100, 100, 1000, decay, 0.02) == 1 and shape(1000, 100, 1000, decay, 0.02) == pytest.approx(0.02)
    assert shape(550, 100, 1000, "cosine", 0) == pytest.approx(0.5)
    assert shape(50, 100, 1000, "constant", 0.02) == 0.5 and shape(999, 100, 1000, "constant", 0.02) == 1


def test_a_run_schedule_spans_the_phases_and_a_phase_schedule_restarts_in_each():
    settings = {**SETTINGS, "phases": TWO}
    first, second = plan_phases(settings, 512)
    assert peak_fraction(900, second, settings) == shape(900, 100, 1000, "linear", 0)  # one decay over the run
    restarting = {**settings, "lr_schedule_scope": "phase"}
    assert peak_fraction(900, second, restarting) == 0 and peak_fraction(910, second, restarting) == 1
    assert peak_fraction(450, first, restarting) == shape(450, 100, 900, "linear", 0)


def test_the_corruption_split_decides_what_a_predicted_position_shows():
    ids = blocks(200)
    shown = {}
    splits = {"bert": (0.8, 0.1, 0.1), "mask-only": (1, 0, 0), "keep-only": (0, 0, 1)}
    for name, (mask, random, keep) in splits.items():
        split = {"mask": mask, "random": random, "keep": keep}
        inputs, positions, labels = mask_blocks(ids, keys(200), 10, SPECIAL, MASK, VOCAB, split)
        shown[name] = np.take_along_axis(inputs, positions, axis=1)
        assert (labels == np.take_along_axis(ids, positions, axis=1)).all()
    assert (shown["mask-only"] == MASK).all()
    assert (shown["keep-only"] == np.take_along_axis(ids, positions, axis=1)).all()
    assert 0.75 < (shown["bert"] == MASK).mean() < 0.85
    default = mask_blocks(ids, keys(200), 10, SPECIAL, MASK, VOCAB)  # BERT's split is the default
    assert (default[0] == mask_blocks(ids, keys(200), 10, SPECIAL, MASK, VOCAB, {"mask": 0.8, "random": 0.1})[0]).all()


MARKS = {"train_begin": 10.0, "step_10": 12.0, "evaluated_10": 13.0, "step_40": 16.0, "evaluated_40": 16.5}
MARKS["saved"] = 17.0  # 0.1 s per step after the warm-up, 0.5 s per evaluation and per checkpoint


def test_a_run_of_two_phases_is_projected_as_the_sum_of_its_phases():
    burst, settings = {"warmup_steps": 10, "steps": 30}, {"max_steps": 1000, "eval_steps": 250, "save_steps": 500}
    launch = {"backend": "cpu", "world_size": 1}
    first = project(MARKS, 5.0, burst, settings, 1, 2.0, (0, 900), phase=1, block_size=128, global_batch_size=1024,
                    **launch)  # fmt: skip
    second = project({**MARKS, "step_40": 19.0}, 9.0, burst, settings, 1, 2.0, (900, 1000), phase=2, block_size=512,
                     global_batch_size=256, **launch)  # fmt: skip
    assert (first.evaluations, first.checkpoints, second.evaluations, second.checkpoints) == (3, 1, 1, 1)
    assert second.seconds_per_step == pytest.approx(0.2) and second.max_steps == 100
    run = combined([first, second], 1, 2.0)
    assert run.max_steps == 1000 and run.phases == (first, second)
    assert (run.phase, run.block_size, run.global_batch_size) == (2, 512, 256)  # the last phase's launch
    assert run.projected_train_seconds == pytest.approx(first.projected_train_seconds + second.projected_train_seconds)
    assert run.startup_seconds == first.startup_seconds + second.startup_seconds == 5 + 1
    assert run.samples_per_second == pytest.approx((900 * 1024 + 100 * 256) / (900 * 0.1 + 100 * 0.2))
    assert run.projected_cost == pytest.approx(2.0 * run.projected_wall_seconds / 3600)
