"""Publish the tokenizer and the packed data set to the Hub (token from HF_TOKEN or the Hub's login cache only)."""

import argparse
import json

from atomic import atomic_path
from errors import DataError, run_cli


def push(tokenizer_dir: str, results_dir: str, settings: dict) -> dict:
    """Upload the tokenizer folder and the blocks with their manifest; return what went where."""
    from huggingface_hub import HfApi

    api = HfApi()
    uploads = {
        "tokenizer": (settings["tokenizer_repo"], "model", tokenizer_dir, None),
        "dataset": (settings["dataset_repo"], "dataset", results_dir, ["dataset/manifest.json", "blocks/**"]),
    }
    pushed = {}
    for what, (repo, repo_type, folder, patterns) in uploads.items():
        try:
            api.create_repo(repo, repo_type=repo_type, private=settings["private"], exist_ok=True)
            commit = api.upload_folder(
                repo_id=repo,
                repo_type=repo_type,
                folder_path=folder,
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
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    pushed = push(args.tokenizer, args.results, json.loads(args.settings))
    with atomic_path(args.out) as tmp:
        tmp.write_text(json.dumps(pushed, indent=1) + "\n")


if __name__ == "__main__":
    run_cli(main)
