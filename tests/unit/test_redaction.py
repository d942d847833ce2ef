"""What a message may quote: every URL without its user information, query and fragment, wherever the URL comes from
(the config, the environment, a library's error), and Hub tokens blanked."""

import pytest

from snakebert.errors import DataError, run_cli
from snakebert.redaction import credential_parts, redact, short

SECRET = "s3cr3tTOKEN"


@pytest.mark.parametrize(
    ("url", "shown", "parts"),
    [
        (f"http://{SECRET}@mlflow.lab/", "http://***@mlflow.lab/", ["user information"]),
        (f"https://me:{SECRET}@mlflow.lab:5000", "https://***@mlflow.lab:5000", ["user information"]),
        (f"http://mlflow.lab/?token={SECRET}", "http://mlflow.lab/?***", ["a query"]),
        (
            f"https://hub.lab/models?x=1&token={SECRET}#{SECRET}",
            "https://hub.lab/models?***#***",
            ["a query", "a fragment"],
        ),
        (f"http://mlflow.lab/#{SECRET}", "http://mlflow.lab/#***", ["a fragment"]),
        ("http://@mlflow.lab/?", "http://***@mlflow.lab/?***", ["user information", "a query"]),  # empty, but there
        ("https://mlflow.lab:5000/runs", "https://mlflow.lab:5000/runs", []),
        ("hf://datasets/someone/corpus@main/train.parquet", "hf://datasets/someone/corpus@main/train.parquet", []),
    ],
)
def test_a_url_is_shown_without_its_user_information_query_and_fragment(url, shown, parts):
    assert redact(url) == shown
    assert credential_parts(url) == parts  # hf://: a revision after '@' in the path is no user information


@pytest.mark.parametrize("text", ["logs/tracking/mlflow", "bert-base-uncased", "corpus/what?.txt", "user@host:path"])
def test_a_text_that_is_not_a_url_holds_no_credential_parts_and_is_shown_as_it_is(text):
    assert credential_parts(text) == [] and redact(text) == text


def test_a_url_with_a_space_is_still_read_whole_for_its_parts():
    assert credential_parts(f"http://mlflow.lab/a b?token={SECRET}") == ["a query"]


def test_every_url_in_a_text_is_redacted_and_hub_tokens_are_blanked():
    text = (
        f"401 Client Error for url: https://{SECRET}@hub.lab/api/datasets/x?token={SECRET}; "
        f"retried 'http://me:{SECRET}@mirror.lab/' with hf_{SECRET}"
    )
    shown = redact(text)
    assert SECRET not in shown
    assert shown == (
        "401 Client Error for url: https://***@hub.lab/api/datasets/x?*** retried 'http://***@mirror.lab/' with hf_***"
    )
    assert SECRET not in short(text * 10) and short(text * 10).endswith(" characters)")


def test_a_data_error_is_printed_redacted_by_the_command_line_guard(capsys):
    """The guard every script runs under prints what lands in the job's log (logs/*.log, and snakemake's own log when
    the job fails): a library's error quoted in a DataError shows no secret of a URL."""

    def main():
        raise DataError(
            f"could not load Hub data set 'x': HTTPError: 401 for url: https://{SECRET}@hub.lab/?t={SECRET}"
        )

    with pytest.raises(SystemExit) as exited:
        run_cli(main)
    assert exited.value.code == 1
    printed = capsys.readouterr().err
    assert SECRET not in printed
    assert "401 for url: https://***@hub.lab/?***" in printed
