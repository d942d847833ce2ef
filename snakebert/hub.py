"""Publish the tokenizer, the packed data set and the model to the Hub (token from HF_TOKEN or the login cache only).

UPLOADS is the one definition of what goes where: the workflow makes the upload wait for exactly these outputs,
and the upload sends exactly them."""

import os
from dataclasses import dataclass

from .errors import DataError


@dataclass(frozen=True)
class Upload:
    setting: str  # the `hub` key that names the repository (no repository: no upload)
    repo_type: str
    root: str  # the folder that becomes the repository's root
    outputs: tuple[str, ...]  # workflow outputs sent; `{source}/{shard}` stands for every shard of the corpus


UPLOADS = {
    "tokenizer": Upload("tokenizer_repo", "model", "results/tokenizer", ("results/tokenizer",)),
    "dataset": Upload(
        "dataset_repo", "dataset", "results", ("results/dataset/manifest.json", "results/blocks/{source}/{shard}.arrow")
    ),
    "model": Upload("model_repo", "model", "results/model", ("results/model",)),
}


def upload_patterns(upload: Upload, files: list[str]) -> list[str]:
    """The paths under `upload.root` to send: each file, and everything in each folder."""
    patterns = []
    for path in files:
        relative = os.path.relpath(path, upload.root)
        patterns.append("*" if relative == "." else f"{relative}/*" if os.path.isdir(path) else relative)
    return patterns


def push(uploads: dict[str, list[str]], settings: dict) -> dict:
    """Send each of `uploads` ({what: its files}) to the repository `settings` names; return what went where."""
    from huggingface_hub import HfApi

    api = HfApi()
    pushed = {}
    for what, files in uploads.items():
        upload = UPLOADS[what]
        repo = settings[upload.setting]
        try:
            api.create_repo(repo, repo_type=upload.repo_type, private=settings["private"], exist_ok=True)
            commit = api.upload_folder(
                repo_id=repo,
                repo_type=upload.repo_type,
                folder_path=upload.root,
                allow_patterns=upload_patterns(upload, files),
                commit_message=f"snakebert: {what}",
            )
        except Exception as error:  # noqa: BLE001 - any Hub failure is reported with the repository it concerns
            raise DataError(f"could not push the {what} to Hub repository {repo!r}: {type(error).__name__}") from None
        pushed[what] = {"repo": repo, "repo_type": upload.repo_type, "commit": commit.oid}
    return pushed
