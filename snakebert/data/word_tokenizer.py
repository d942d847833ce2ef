"""The word and sentence splitter datatrove's quality rules count with. datatrove 0.10.1 splits English words with
spaCy, which the pipeline does not install; this splitter takes its place: words are split at whitespace and at
every punctuation character (`tokenizers`' BertPreTokenizer, which splits as spaCy does for most English text, though
"don't" is three words here and two there), sentences end at a run of terminal punctuation (`.`, `!`, `?`, `…`, with
any closing quotes or brackets) followed by whitespace or the end of the text."""

import re

from datatrove.utils.word_tokenizers import WordTokenizer
from tokenizers.pre_tokenizers import BertPreTokenizer

SENTENCE = re.compile(r"\S(?:.*?[.!?…]+[\"'”’»)\]]*(?=\s|\Z)|.*\Z)", re.DOTALL)


class PunctuationSplitter(WordTokenizer):
    """Words split at whitespace and punctuation, sentences at terminal punctuation (see the module)."""

    def __init__(self):
        super().__init__("en")
        self._words = BertPreTokenizer()

    def word_tokenize(self, text: str) -> list[str]:
        return [word for word, _ in self._words.pre_tokenize_str(text)]

    def sent_tokenize(self, text: str) -> list[str]:
        return [match.group() for match in SENTENCE.finditer(text)]

    def span_tokenize(self, text: str) -> list[tuple[int, int]]:
        return [match.span() for match in SENTENCE.finditer(text)]
