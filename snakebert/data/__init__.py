"""The data half: sources and their formats, cleaning, deduplication, the tokenizer, token shards, packed blocks
and the manifest."""
