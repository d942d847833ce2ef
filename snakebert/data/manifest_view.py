"""The manifest as its readers see it: frozen dataclasses, one per part of manifest.json, whose attributes are the
file's keys (in the file's order), built from the parsed JSON by `Manifest.from_json` and turned back into exactly
that JSON by `as_json` (files/json_views.py). read_manifest (manifest.py) returns one; build_manifest writes the
JSON itself."""

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..errors import DataError
from ..files.json_views import built

MANIFEST_FILE = "results/dataset/manifest.json"  # build_manifest's output, which training and the report read


@dataclass(frozen=True)
class ManifestShard:
    """One shard of the data set's own packing: its block file and text shard (paths relative to the manifest's
    folder), its counts (what cleaning and deduplication kept of it, its tokens and blocks), its SHA-256, and what
    each filter rule removed ({rule: {"docs": n, "chars": n}}) and the language filter by language."""

    path: str
    text_shard: str
    source: str
    docs: int
    tokens: int
    blocks: int
    dropped_tokens: int
    sha256: str
    duplicates: int
    near_duplicates: int
    docs_read: int
    docs_null_or_empty: int
    docs_too_short: int
    chars_read: int
    chars: int
    filtered: dict[str, dict[str, int]]
    languages_removed: dict[str, int]


@dataclass(frozen=True)
class PackedShard:
    """One shard of a packing at another block size: its block file (relative to the manifest's folder), counts
    and SHA-256."""

    path: str
    blocks: int
    dropped_tokens: int
    sha256: str


@dataclass(frozen=True)
class Packing:
    """The same tokens packed in blocks of another size, for a training phase; `train_blocks`: those that overlap no
    validation range."""

    block_size: int
    shards: tuple[PackedShard, ...]
    blocks: int
    train_blocks: int


@dataclass(frozen=True)
class Totals:
    """The shards' counts summed, and the share of the tokens that the blocks hold."""

    docs: int
    tokens: int
    blocks: int
    dropped_tokens: int
    duplicates: int
    near_duplicates: int
    docs_read: int
    docs_null_or_empty: int
    docs_too_short: int
    chars_read: int
    chars: int
    kept_token_fraction: float
    filtered: dict[str, dict[str, int]]
    languages_removed: dict[str, int]


@dataclass(frozen=True)
class ValidationRange:
    """Blocks `start` to `stop` (exclusive) of shard `shard` (its index), held out of training."""

    shard: int
    start: int
    stop: int


@dataclass(frozen=True)
class Split:
    validation_fraction: float
    validation: tuple[ValidationRange, ...]
    validation_blocks: int
    train_blocks: int


@dataclass(frozen=True)
class PackingRules:
    """How the blocks were packed (manifest.PACKING)."""

    documents: str
    order: str
    remainder: str


@dataclass(frozen=True)
class Commit:
    id: str
    modified: bool


@dataclass(frozen=True)
class Provenance:
    libraries: dict[str, str | None]  # {distribution: version, None where it was not installed}
    commit: Commit | None  # None outside a git checkout
    config_digest: str


@dataclass(frozen=True)
class Manifest:
    """results/dataset/manifest.json: the block format, the shards, their totals, the validation split, the shuffle
    seed, the format version, how the blocks were packed, the special token ids, the provenance and the packings at
    the phases' other block sizes."""

    block_size: int
    vocab_size: int
    dtype: str
    column: str
    shards: tuple[ManifestShard, ...]
    totals: Totals
    split: Split
    shuffle_seed: int
    format_version: int
    packing: PackingRules
    special_ids: dict[str, int]  # {role: token id}
    provenance: Provenance
    packings: tuple[Packing, ...]

    @classmethod
    def from_json(cls, data: dict) -> "Manifest":
        """The view of a parsed manifest.json; KeyError, TypeError or ValueError where a part is missing or is not
        of its kind (read_manifest names the file)."""
        split, provenance = data["split"], data["provenance"]
        commit = provenance["commit"]
        return built(
            cls,
            data,
            shards=tuple(built(ManifestShard, shard) for shard in data["shards"]),
            totals=built(Totals, data["totals"]),
            split=built(Split, split, validation=tuple(built(ValidationRange, run) for run in split["validation"])),
            packing=built(PackingRules, data["packing"]),
            special_ids=dict(data["special_ids"]),
            provenance=built(
                Provenance,
                provenance,
                libraries=dict(provenance["libraries"]),
                commit=None if commit is None else built(Commit, commit),
            ),
            packings=tuple(
                built(Packing, packing, shards=tuple(built(PackedShard, shard) for shard in packing["shards"]))
                for packing in data["packings"]
            ),
        )

    def packing_shards(self, block_size: int) -> tuple[ManifestShard, ...] | tuple[PackedShard, ...]:
        """The shards of the packing of `block_size` (the data set's own, or one of `packings`)."""
        if block_size == self.block_size:
            return self.shards
        for packing in self.packings:
            if packing.block_size == block_size:
                return packing.shards
        raise DataError(f"the manifest has no packing of {block_size}-token blocks; rerun the workflow to pack them")

    def held_out(self, block_size: int) -> np.ndarray:
        """Per block of the packing of `block_size` (shards in manifest order), whether it holds a token of the
        validation split."""
        counts = [shard.blocks for shard in self.packing_shards(block_size)]
        return held_out_mask(counts, self.split.validation, self.block_size, block_size)


def held_out_mask(counts: list[int], validation: Iterable[ValidationRange], size: int, block_size: int) -> np.ndarray:
    """Per block of a packing of `block_size` whose shards hold `counts` blocks, whether it overlaps a `validation`
    range: the split is drawn in blocks of the data set's `size`, and every packing leaves out of training each block
    that overlaps it."""
    starts = np.cumsum([0] + counts)
    mask = np.zeros(starts[-1], dtype=bool)
    for run in validation:
        first = run.start * size // block_size
        stop = min(-(-run.stop * size // block_size), counts[run.shard])
        mask[starts[run.shard] + first : starts[run.shard] + stop] = True
    return mask
