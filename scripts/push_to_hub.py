"""Publish the tokenizer, the packed data set and the model to the Hub (token from HF_TOKEN or the login cache only)."""

import argparse
import json

from atomic import atomic_path
from errors import DataError, run_cli

UPLOADS = {  # what: (repository setting, repository type, folder under results/, files in it)
    "tokenizer": ("tokenizer_repo", "model", "tokenizer", None),
    "dataset": ("dataset_repo", "dataset", ".", ["dataset/manifest.json", "blocks/**"]),
    "model": ("model_repo", "model", "model", None),
}


def push(results_dir: str, settings: dict) -> dict:
    """Upload what has a repository in `settings`; return what went where."""
    from huggingface_hub import HfApi

    api = HfApi()
    pushed = {}
    for what, (key, repo_type, folder, patterns) in UPLOADS.items():
        repo = settings[key]
        if not repo:
            continue
        try:
            api.create_repo(repo, repo_type=repo_type, private=settings["private"], exist_ok=True)
            commit = api.upload_folder(
                repo_id=repo,
                repo_type=repo_type,
                folder_path=f"{results_dir}/{folder}",
                allow_patterns=patterns,
                commit_message=f"snakebert: {what}",
            )
        except Exception as error:  # noqa: BLE001 - any Hub failure is reported with the repository it concerns
            raise DataError(f"could not push the {what} to Hub repository {repo!r}: {type(error).__name__}") from None
        pushed[what] = {"repo": repo, "repo_type": repo_type, "commit": commit.oid}
    return pushed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--settings", required=True, help="the `hub` config, as JSON")
    parser.add_argument("--results", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    pushed = push(args.results, json.loads(args.settings))
    with atomic_path(args.out) as tmp:
        tmp.write_text(json.dumps(pushed, indent=1) + "\n")


if __name__ == "__main__":
    run_cli(main)
