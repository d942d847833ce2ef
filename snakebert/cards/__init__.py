"""The Hub cards of the model (model.py) and of the data set (dataset.py), built with huggingface_hub's ModelCard and
DatasetCard from the run's own files, and the markdown they share. A card holds no date: the same inputs give the
same bytes."""

from huggingface_hub import CardData, RepoCard

from ..data.manifest_view import Manifest
from ..files.atomic import atomic_path


def corpus_sources(manifest: Manifest) -> list[str]:
    """The sources of the manifest's shards, in corpus order."""
    return list(dict.fromkeys(shard.source for shard in manifest.shards))


def section(title: str, *paragraphs: str) -> str:
    return "\n\n".join([f"## {title}", *paragraphs])


def bullets(facts: dict[str, str]) -> str:
    return "\n".join(f"- **{name}:** {value}" for name, value in facts.items())


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def card_text(metadata: CardData, sections: list[str]) -> str:
    """A card's text: `metadata` (ModelCardData or DatasetCardData) as the YAML block, then the sections."""
    return f"---\n{metadata.to_yaml()}\n---\n\n" + "\n\n".join(sections) + "\n"


def write_card(card: RepoCard, out: str) -> None:
    with atomic_path(out) as tmp:
        card.save(tmp)
