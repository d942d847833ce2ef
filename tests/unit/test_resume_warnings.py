"""What a resumed run warns of: transformers' own resume checks, less the two that every phased or resumed run
would print about what it does by design (a tied decoder saved once, a phase's own batch size)."""

import logging
from types import SimpleNamespace

import pytest
from log_records import logged
from transformers import BertConfig, BertForMaskedLM, ModernBertConfig, ModernBertForMaskedLM
from transformers.trainer_utils import compare_trainer_and_checkpoint_args

from snakebert.training.trainers import RESUME_LOGGERS, PhaseBatchNotice, untied_missing

TINY = {"vocab_size": 64, "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 32}


@pytest.mark.parametrize(
    "model, decoder",
    [
        (BertForMaskedLM(BertConfig(**TINY)), "cls.predictions.decoder.weight"),
        (ModernBertForMaskedLM(ModernBertConfig(**TINY, pad_token_id=0)), "decoder.weight"),
    ],
)
def test_a_tied_decoder_is_not_missing_but_an_own_weight_is(model, decoder):
    embeddings = model.get_input_embeddings().weight
    assert dict(model.named_parameters(remove_duplicate=False))[decoder] is embeddings
    assert untied_missing(model, [decoder]) == []
    own = next(name for name, _ in model.named_parameters() if "layer" in name)
    assert untied_missing(model, [decoder, own]) == [own]


def test_an_untied_decoder_is_missing():
    model = BertForMaskedLM(BertConfig(**TINY, tie_word_embeddings=False))
    assert untied_missing(model, ["cls.predictions.decoder.weight"]) == ["cls.predictions.decoder.weight"]


@pytest.fixture
def resume_log():
    """What reaches transformers 5's resume logger with the filter every trainer adds."""
    logger, notice = logging.getLogger(RESUME_LOGGERS[0]), PhaseBatchNotice()
    logger.addFilter(notice)
    with logged(RESUME_LOGGERS[0]) as messages:
        yield messages
    logger.removeFilter(notice)


def arguments(batch: int, logging_steps: int = 10) -> SimpleNamespace:
    return SimpleNamespace(per_device_train_batch_size=batch, n_gpu=0, logging_steps=logging_steps, eval_steps=20,
                           save_steps=40)  # fmt: skip


def test_a_phase_batch_size_alone_is_not_warned_of_but_any_other_mismatch_is(resume_log):
    checkpoint = SimpleNamespace(train_batch_size=32, logging_steps=10, eval_steps=20, save_steps=40)
    compare_trainer_and_checkpoint_args(arguments(8), checkpoint)
    assert resume_log == []
    compare_trainer_and_checkpoint_args(arguments(8, logging_steps=5), checkpoint)
    [warning] = resume_log
    assert "logging_steps: 5 (from args) != 10" in warning and "per_device_train_batch_size: 8" in warning
