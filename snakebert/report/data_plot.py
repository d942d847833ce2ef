"""The report's data statistics: what cleaning and deduplication kept of each source, the tokens of each shard,
and how long the documents are against the block size."""

from collections import defaultdict

import matplotlib
import numpy as np
import pyarrow.compute as pc
from matplotlib import ticker

from ..data.manifest import read_manifest
from ..errors import DataError
from ..files.arrow_streams import stream_batches
from ..files.block_format import COLUMN
from .figures import figure, save_svg

FATES = (("docs", "kept"), ("duplicates", "duplicates"), ("near_duplicates", "near-duplicates"),
         ("docs_too_short", "too short"), ("docs_null_or_empty", "null or empty"))  # fmt: skip


def document_lengths(token_shards: list[str]) -> np.ndarray:
    """Tokens per document, read from the list offsets of the token shards (memory-mapped, no token copied)."""
    lengths = []
    for path in token_shards:
        for batch in stream_batches(path):
            lengths.append(pc.list_value_length(batch.column(COLUMN)).to_numpy(zero_copy_only=False))
    return np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int32)


def truncated_share(lengths: np.ndarray, block_size: int) -> float:
    """The share of tokens a recipe that truncates every document to `block_size` would keep."""
    return float(np.minimum(lengths, block_size).sum() / lengths.sum())


def plot_data(manifest_path: str, token_shards: list[str], out: str) -> dict:
    manifest = read_manifest(manifest_path)
    lengths = document_lengths(token_shards)
    if not len(lengths):
        raise DataError(f"{manifest_path}: the token shards hold no documents")
    block_size = manifest.block_size
    fig, (fates, shards, histogram) = figure(3)

    per_source: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for shard in manifest.shards:
        for key, _ in FATES:
            per_source[shard.source][key] += getattr(shard, key)
        for rule, counts in shard.filtered.items():
            per_source[shard.source][rule] += counts["docs"]
    sources = sorted(per_source)
    left = np.zeros(len(sources))
    filtered = [(rule, rule.replace("_", " ")) for rule in manifest.totals.filtered]
    for key, label in [*FATES[:3], *filtered, *FATES[3:]]:
        counts = np.array([per_source[source][key] for source in sources])
        fates.barh(sources, counts, left=left, label=label)
        left += counts
    fates.set(title="Documents read, by what became of them", xlabel="documents")
    fates.legend(loc="lower right")

    shards.set_prop_cycle(color=matplotlib.colormaps["tab10"].colors[4:])
    for source in sources:
        numbered = [(index, shard.tokens) for index, shard in enumerate(manifest.shards) if shard.source == source]
        shards.bar(*zip(*numbered, strict=True), width=0.9, label=source)
    shards.xaxis.get_major_locator().set_params(integer=True)
    total = sum(shard.tokens for shard in manifest.shards)
    shards.set(title=f"Tokens per shard ({total:,} in {len(manifest.shards)} shards)", xlabel="shard",
               ylabel="tokens")  # fmt: skip
    shards.yaxis.set_major_formatter(ticker.StrMethodFormatter("{x:,.0f}"))
    shards.legend(title="source")

    bins = np.unique(np.geomspace(max(lengths.min(), 1), lengths.max() + 1, 40).astype(int))
    histogram.hist(lengths, bins=bins, color="C8")
    histogram.axvline(block_size, color="k", linestyle="--", label=f"block size {block_size}")
    histogram.set(xscale="log", title="Document length", xlabel="tokens per document", ylabel="documents")
    histogram.xaxis.set_major_formatter(ticker.StrMethodFormatter("{x:,.0f}"))
    histogram.xaxis.set_minor_formatter(ticker.NullFormatter())
    kept_if_truncated = truncated_share(lengths, block_size)
    histogram.legend(title=f"truncated to a block: {kept_if_truncated:.1%} of the tokens kept", loc="best")
    save_svg(fig, out)
    return {"documents": int(len(lengths)), "kept_if_truncated": kept_if_truncated}
