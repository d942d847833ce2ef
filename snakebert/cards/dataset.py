"""The data set card (results/cards/dataset/README.md): the manifest's counts, split and provenance (in the card's
metadata too, under `snakebert`), its block files, and how to read them."""

import os

from huggingface_hub import DatasetCard, DatasetCardData

from ..data.manifest import read_manifest
from ..data.manifest_view import MANIFEST_FILE, Manifest, Provenance, Totals
from ..files.json_views import as_json
from ..hub import UPLOADS
from . import bullets, card_text, corpus_sources, markdown_table, section, write_card

SIZE_CATEGORIES = ("n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M", "100M<n<1B", "1B<n<10B",
                   "10B<n<100B", "100B<n<1T", "n>1T")  # fmt: skip
IN_REPOSITORY = os.path.relpath(MANIFEST_FILE, UPLOADS["dataset"].root)  # the manifest's path in the repository
MANIFEST = (
    f"`{IN_REPOSITORY}` describes the data set: the block format, each shard's counts and SHA-256, the "
    "validation split (per shard, the blocks from `start` to `stop`) and the shuffle seed. The block files, relative "
    "to it:"
)
USAGE = f"""```python
import json
import os

from datasets import Dataset, concatenate_datasets

manifest_path = "{IN_REPOSITORY}"  # in this repository's files, or the workflow's results/
with open(manifest_path) as file:
    manifest = json.load(file)
folder = os.path.dirname(manifest_path)
shards = [Dataset.from_file(os.path.join(folder, shard["path"])) for shard in manifest["shards"]]
blocks = concatenate_datasets(shards)
validation = concatenate_datasets(
    [shards[run["shard"]].select(range(run["start"], run["stop"])) for run in manifest["split"]["validation"]]
)
print(blocks, validation)
```"""


def size_category(examples: int) -> str:
    """The Hub's size category of a data set of `examples` rows."""
    return SIZE_CATEGORIES[min(max(len(str(examples)) - 3, 0), len(SIZE_CATEGORIES) - 1)]


def dataset_counts(manifest: Manifest) -> dict:
    """What the card's metadata records of the manifest."""
    totals, split = manifest.totals, manifest.split
    return {
        "shards": len(manifest.shards),
        "documents": totals.docs,
        "tokens": totals.tokens,
        "dropped_tokens": totals.dropped_tokens,
        "blocks": totals.blocks,
        "block_size": manifest.block_size,
        "dtype": manifest.dtype,
        "column": manifest.column,
        "vocab_size": manifest.vocab_size,
        "validation_fraction": split.validation_fraction,
        "validation_blocks": split.validation_blocks,
        "train_blocks": split.train_blocks,
        "shuffle_seed": manifest.shuffle_seed,
        "provenance": as_json(manifest.provenance),
    }


def made_with(provenance: Provenance) -> str:
    libraries = ", ".join(f"{name} {found or '-'}" for name, found in provenance.libraries.items())
    commit = provenance.commit
    if commit is None:
        code = "outside a git checkout"
    else:
        code = f"commit {commit.id}{' (modified)' if commit.modified else ''}"
    return f"{libraries}; snakebert {code}; data config digest {provenance.config_digest}"


def description(counts: dict, sources: list[str]) -> str:
    return (
        f"Token blocks for pretraining a BERT with masked language modelling, made by snakebert from "
        f"{', '.join(sources)}. Every document is tokenized whole by a WordPiece tokenizer of {counts['vocab_size']:,} "
        f"tokens (`[CLS] ... [SEP]`, never truncated); the documents of a shard are concatenated in corpus order and "
        f"cut into blocks of {counts['block_size']} tokens, and each shard's last partial block is dropped."
    )


def contents(counts: dict, provenance: Provenance) -> dict[str, str]:
    return {
        "shards": f"{counts['shards']:,}",
        "documents": f"{counts['documents']:,}",
        "tokens": f"{counts['tokens']:,} ({counts['dropped_tokens']:,} dropped with the shards' last partial blocks)",
        "blocks": f"{counts['blocks']:,} of {counts['block_size']} `{counts['dtype']}` token ids, column "
        f"`{counts['column']}`",
        "validation split": f"{counts['validation_blocks']:,} blocks ({counts['validation_fraction'] * 100:g}% of each "
        f"shard's, in one run at a seeded offset); {counts['train_blocks']:,} for training",
        "shuffle seed": f"{counts['shuffle_seed']} (training permutes the block indices at load time; the files stay "
        "in corpus order)",
        "made with": made_with(provenance),
    }


CLEANING = {  # each count of the totals that removed documents before the filters, and why
    "docs_null_or_empty": "null or empty text",
    "docs_too_short": "shorter than `clean.min_chars` after cleaning",
}
FILTER_RULES = {  # why each filter rule removed documents
    "language": "not in `clean.languages`, or below `clean.language_threshold` (py3langid)",
    "gopher_repetition": "repeated lines, paragraphs or n-grams: Gopher's rules (`clean.quality.gopher_repetition`)",
    "gopher_quality": "Gopher's quality rules: length, words, symbols, stop words (`clean.quality.gopher_quality`)",
    "c4": "C4's rules: too few sentences, code, boilerplate (`clean.quality.c4`)",
}
DEDUPLICATION = {
    "duplicates": "an exact repeat of an earlier document (`clean.dedup`)",
    "near_duplicates": "a near-duplicate of an earlier document: MinHash of word n-grams (`clean.near_dedup`)",
}


def removal_table(totals: Totals) -> str:
    """What was removed and why, in the order the jobs remove it: each rule's documents, and their share of the
    documents read."""
    removed = {
        **{why: getattr(totals, key) for key, why in CLEANING.items()},
        **{FILTER_RULES[rule]: counts["docs"] for rule, counts in totals.filtered.items()},
        **{why: getattr(totals, key) for key, why in DEDUPLICATION.items()},
    }
    rows = [[why, f"{docs:,}", f"{docs / max(totals.docs_read, 1):.2%}"] for why, docs in removed.items()]
    return markdown_table(["removed as", "documents", "of those read"], rows)


def removals(totals: Totals) -> str:
    """The removal section's lead: documents read and kept, and the languages the language filter removed."""
    lead = f"{totals.docs_read:,} documents read, {totals.docs:,} kept."
    if not totals.languages_removed:
        return lead
    languages = ", ".join(f"{code} {docs:,}" for code, docs in sorted(totals.languages_removed.items(),
                                                                       key=lambda item: -item[1]))  # fmt: skip
    return f"{lead} Removed by language: {languages}."


def shard_table(manifest: Manifest) -> str:
    return markdown_table(
        ["file", "source", "documents", "tokens", "blocks", "SHA-256"],
        [
            [f"`{shard.path}`", shard.source, f"{shard.docs:,}", f"{shard.tokens:,}", f"{shard.blocks:,}",
             f"`{shard.sha256}`"]
            for shard in manifest.shards
        ],
    )  # fmt: skip


def dataset_card(manifest: Manifest) -> DatasetCard:
    """The card of the data set `manifest` describes."""
    sources, counts = corpus_sources(manifest), dataset_counts(manifest)
    metadata = DatasetCardData(
        pretty_name=f"snakebert blocks of {', '.join(sources)}",
        task_categories=["fill-mask"],
        task_ids=["masked-language-modeling"],
        size_categories=[size_category(counts["blocks"])],
        tags=["snakebert", "pretraining", "tokenized"],
        snakebert=counts,
    )
    reading = (
        f"Each block file is an Arrow IPC stream with one column, `{counts['column']}`: "
        f"`fixed_size_list<{counts['dtype']}>[{counts['block_size']}]`. Blocks are full, so the attention mask is all "
        "ones and the token type ids all zeros; neither is stored. With `datasets`, from this repository's folder:"
    )
    sections = [
        f"# {metadata.pretty_name}\n\n{description(counts, sources)}",
        section("Contents", bullets(contents(counts, manifest.provenance))),
        section("What was removed and why", removals(manifest.totals), removal_table(manifest.totals)),
        section("Files", MANIFEST, shard_table(manifest)),
        section("How to read the blocks", reading, USAGE),
    ]
    return DatasetCard(card_text(metadata, sections))


def write_dataset_card(manifest: str, out: str) -> None:
    write_card(dataset_card(read_manifest(manifest)), out)
