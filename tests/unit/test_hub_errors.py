"""The Hub upload's refusal names the repository and the Hub's own reason, with no secret of the Hub's URL: an
`HF_ENDPOINT` with user information or a query shows in the library's error only redacted."""

import http.server
import threading

import huggingface_hub.constants
import pytest

from snakebert.errors import DataError
from snakebert.hub import push

SECRET = "endpointSecret42"


class Refusing(http.server.BaseHTTPRequestHandler):
    """A Hub that refuses every request's credentials."""

    def do_POST(self):
        self.send_response(401)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_refused_upload_names_the_repository_and_the_hubs_reason_without_the_endpoints_secrets(tmp_path, monkeypatch):
    (tmp_path / "results/tokenizer").mkdir(parents=True)
    (tmp_path / "results/tokenizer/tokenizer.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    server = http.server.HTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://{SECRET}@127.0.0.1:{server.server_port}/?token={SECRET}"
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", endpoint)  # HF_ENDPOINT, as the library read it
    try:
        with pytest.raises(DataError) as refused:
            push({"tokenizer": ["results/tokenizer"]}, {"tokenizer_repo": "someone/tok", "private": True})
    finally:
        server.shutdown()
    shown = str(refused.value)
    assert shown.startswith("could not push the tokenizer to Hub repository 'someone/tok': HfHubHTTPError: ")
    assert f"401 Unauthorized' for url 'http://***@127.0.0.1:{server.server_port}/?***" in shown
    assert SECRET not in shown
