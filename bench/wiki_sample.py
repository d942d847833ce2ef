"""A local sample of Wikipedia, laid out like the Hub's `wikipedia` data set (one Parquet file of id, url, title,
text), from a MediaWiki XML dump: the data the classic config's Wikipedia shards hold, for a machine without the Hub.

    pip install -r bench/requirements-wiki-sample.txt
    pip download --no-deps gensim==4.4.0 -d /tmp/gensim   # its tests ship the first pages of two dumps
    unzip -o /tmp/gensim/gensim-4.4.0-*.whl 'gensim/test/test_data/*wiki*' -d /tmp/gensim
    python bench/wiki_sample.py /tmp/gensim/gensim/test/test_data/enwiki-*-shortened.bz2 /tmp/wiki-en

Articles only (namespace 0, no redirects). The markup goes as the Hub's data set strips it: links to files, images
and categories dropped with their captions, every other template, tag and link reduced to its text by
mwparserfromhell, runs of blank lines collapsed.
"""

import argparse
import bz2
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import mwparserfromhell
import pyarrow as pa
import pyarrow.parquet as pq

DROPPED_LINKS = re.compile(r"^\s*:?\s*(file|image|category)\s*:", re.IGNORECASE)
BLANK_RUNS = re.compile(r"\n{3,}")


def plain_text(wikitext: str) -> str:
    """An article's text without its markup."""
    code = mwparserfromhell.parse(wikitext)
    for link in code.filter_wikilinks():
        if DROPPED_LINKS.match(str(link.title)):
            try:
                code.remove(link)
            except ValueError:
                continue
    return BLANK_RUNS.sub("\n\n", code.strip_code().strip())


def articles(dump: Path):
    """(id, title, wikitext) of each article in the dump, in its order."""
    with bz2.open(dump, "rb") as stream:
        for _, element in ElementTree.iterparse(stream):
            if not element.tag.endswith("}page"):
                continue
            namespace = element.tag[: -len("page")]
            redirect = element.find(f"{namespace}redirect")
            if element.findtext(f"{namespace}ns") == "0" and redirect is None:
                text = element.findtext(f"{namespace}revision/{namespace}text") or ""
                yield element.findtext(f"{namespace}id"), element.findtext(f"{namespace}title"), text
            element.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path, help="a pages-articles XML dump, bz2-compressed")
    parser.add_argument("out", type=Path, help="the folder to write train-00000-of-00001.parquet into")
    parser.add_argument("--site", default="https://en.wikipedia.org", help="the wiki's address, for the url column")
    args = parser.parse_args()
    rows = {"id": [], "url": [], "title": [], "text": []}
    for page_id, title, wikitext in articles(args.dump):
        rows["id"].append(page_id)
        rows["url"].append(f"{args.site}/wiki?curid={page_id}")
        rows["title"].append(title)
        rows["text"].append(plain_text(wikitext))
    args.out.mkdir(parents=True, exist_ok=True)
    table = pa.table(rows)
    pq.write_table(table, args.out / "train-00000-of-00001.parquet")
    chars = sum(len(text) for text in rows["text"])
    print(f"{table.num_rows} articles, {chars:,} characters -> {args.out}")


if __name__ == "__main__":
    main()
