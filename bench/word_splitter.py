"""The quality rules' verdicts with the pipeline's word splitter against datatrove's own (spaCy's English tokenizer),
side by side on the same documents: per rule, the documents each removes, where they disagree, and the seconds each
takes; and beside them the splitter the rules had before (BERT's pre-tokenizer, every punctuation character a word).

    pip install -r bench/requirements-word-splitter.txt
    python bench/word_splitter.py /tmp/wiki-en/train-00000-of-00001.parquet results/raw/sotu/*.arrow

Documents are read from Parquet files or Arrow IPC streams (their `text` column), each cut to the filters' first
GOPHER_PREFIX characters as the filter job cuts them.
"""

import argparse
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from datatrove.data import Document
from datatrove.utils.word_tokenizers import WordTokenizer
from tokenizers.pre_tokenizers import BertPreTokenizer

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from snakebert.data.filtering import GOPHER_PREFIX, QUALITY_RULES, prefix  # noqa: E402
from snakebert.data.word_tokenizer import EnglishSplitter  # noqa: E402


class BertWords(EnglishSplitter):
    """The splitter the rules had before: every punctuation character a word of its own."""

    def __init__(self):
        super().__init__()
        self._words = BertPreTokenizer()

    def word_tokenize(self, text: str) -> list[str]:
        return [word for word, _ in self._words.pre_tokenize_str(text)]


def documents(paths: list[Path]) -> list[tuple[str, str]]:
    """(name, text) of every document in `paths`."""
    found = []
    for path in paths:
        table = pq.read_table(path) if path.suffix == ".parquet" else pa.ipc.open_stream(path).read_all()
        titles = table.column("title").to_pylist() if "title" in table.column_names else None
        for row, text in enumerate(table.column("text").to_pylist()):
            found.append(
                (titles[row] if titles else f"{path.parent.name}/{path.name}:{row}", prefix(text, GOPHER_PREFIX))
            )
    return found


def verdicts(rule: str, language: str | WordTokenizer, docs: list[tuple[str, str]]) -> tuple[dict, float]:
    """{name: datatrove's reason} of the documents `rule` removes with `language`'s splitter, and the CPU seconds."""
    check = QUALITY_RULES[rule](language=language)
    removed = {}
    start = time.process_time()
    for number, (name, text) in enumerate(docs):
        verdict = check.filter(Document(text=text, id=str(number)))
        if verdict is not True:
            removed[name] = verdict[1] if isinstance(verdict, tuple) else "removed"
    return removed, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+", help="Parquet files or Arrow IPC streams with a text column")
    args = parser.parse_args()
    docs = documents(args.files)
    print(f"{len(docs)} documents, {sum(len(text) for _, text in docs):,} characters\n")
    print("| rule | removed: spaCy | ours | agree | BERT's pre-tokenizer | agree | seconds: spaCy | ours | BERT's |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    differences = []
    for rule in QUALITY_RULES:
        spacy, spacy_s = verdicts(rule, "en", docs)
        ours, ours_s = verdicts(rule, EnglishSplitter(), docs)
        bert, bert_s = verdicts(rule, BertWords(), docs)
        agree = sum((name in spacy) == (name in ours) for name, _ in docs)
        agree_bert = sum((name in spacy) == (name in bert) for name, _ in docs)
        print(
            f"| {rule} | {len(spacy)} | {len(ours)} | {agree} of {len(docs)} | {len(bert)} | {agree_bert} of "
            f"{len(docs)} | {spacy_s:.2f} | {ours_s:.2f} | {bert_s:.2f} |"
        )
        differences += [f"{rule}: {name} (spaCy {spacy.get(name)}, ours {ours.get(name)})"
                        for name, _ in docs if (name in spacy) != (name in ours)]  # fmt: skip
    print("\nWhere ours and spaCy's disagree:" if differences else "\nNo disagreement.")
    for line in differences:
        print(f"- {line}")


if __name__ == "__main__":
    main()
