"""Publish the tokenizer, the packed data set and the model to the Hub (token from HF_TOKEN or the login cache only).

UPLOADS is the one definition of what goes where: the workflow makes the upload wait for exactly these outputs and
cards, and the upload sends exactly them, a card as its repository's README.md."""

import os
from dataclasses import dataclass

from .data.manifest_view import MANIFEST_FILE
from .errors import DataError, first_line
from .training.training_metrics import MODEL_FOLDER


@dataclass(frozen=True)
class Upload:
    setting: str  # the `hub` key that names the repository (no repository: no upload)
    repo_type: str
    root: str  # the folder that becomes the repository's root
    outputs: tuple[str, ...]  # workflow outputs sent; `{source}/{shard}` stands for every shard of the corpus
    card: str | None = None  # the workflow output sent as the repository's README.md


UPLOADS = {
    "tokenizer": Upload("tokenizer_repo", "model", "results/tokenizer", ("results/tokenizer",)),
    "dataset": Upload(
        "dataset_repo",
        "dataset",
        "results",
        (MANIFEST_FILE, "results/blocks/{source}/{shard}.arrow"),
        "results/cards/dataset/README.md",
    ),
    "model": Upload("model_repo", "model", MODEL_FOLDER, (MODEL_FOLDER,), "results/cards/model/README.md"),
}


def local_files(path: str) -> list[str]:
    """`path`, or each file in it when it is a folder."""
    if not os.path.isdir(path):
        return [path]
    return [os.path.join(folder, name) for folder, _, names in os.walk(path) for name in names]


def upload_plan(upload: Upload, files: list[str]) -> dict[str, str]:
    """{path in the repository: local file} of what `files` send: each file, and each file in each folder, at its
    path under `upload.root`; the card as README.md (over one a folder holds)."""
    plan = {}
    for path in files:
        if path != upload.card:
            plan.update({os.path.relpath(local, upload.root): local for local in local_files(path)})
    if upload.card in files:
        plan["README.md"] = upload.card
    return dict(sorted(plan.items()))


def push(uploads: dict[str, list[str]], settings: dict) -> dict:
    """Send each of `uploads` ({what: its files}) to the repository `settings` names; return what went where."""
    from huggingface_hub import CommitOperationAdd, HfApi

    api = HfApi()
    pushed = {}
    for what, files in uploads.items():
        upload = UPLOADS[what]
        repo = settings[upload.setting]
        operations = [CommitOperationAdd(sent, local) for sent, local in upload_plan(upload, files).items()]
        try:
            api.create_repo(repo, repo_type=upload.repo_type, private=settings["private"], exist_ok=True)
            commit = api.create_commit(
                repo, operations, commit_message=f"snakebert: {what}", repo_type=upload.repo_type
            )
        except Exception as error:  # noqa: BLE001 - any Hub failure is reported with the repository it concerns
            reason = f"{type(error).__name__}: {first_line(error)}"  # a URL in it redacted, as in every DataError
            raise DataError(f"could not push the {what} to Hub repository {repo!r}: {reason}") from None
        pushed[what] = {"repo": repo, "repo_type": upload.repo_type, "commit": commit.oid}
    return pushed
