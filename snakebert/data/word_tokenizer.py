"""The word and sentence splitter datatrove's quality rules count with. datatrove 0.10.1 splits English words with
spaCy (`spacy.blank("en")`), which the pipeline does not install; this splitter follows the rules of spaCy's English
tokenizer that decide what the quality rules count, so a document gets the same verdicts (bench/RESULTS.md,
"bench/word_splitter.py"):
- text splits at whitespace; from each piece, punctuation comes off the front one character at a time, and off the
  back, where `'s`, `n't` and the like come off whole and a full stop stays after a lone capital ("J.", "U.S."), on
  letters each with its stop ("p.", "e.g.") and on spaCy's English abbreviations (titles, months, states);
- a web address stays whole; other pieces split inside at a hyphen or dash before a letter, at a sign between
  digits ("1861-1865"), at a comma between letters, at `: < > = /` before a letter, and at an ellipsis; numbers
  such as "1,000.50" and "3.5" stay whole.
Splitting every punctuation character off (as BERT's pre-tokenizer does) counts "1,000" as three words, two of
them without a letter: on Wikipedia that took 44 of the first 106 articles below Gopher's 80% of words with a letter,
where spaCy's words take 26. Sentences end at a run of terminal punctuation (`.`, `!`, `?`, `…`, with any closing
quotes or brackets) followed by whitespace or the end of the text."""

import re

from datatrove.utils.word_tokenizers import WordTokenizer

SENTENCE = re.compile(r"\S(?:.*?[.!?…]+[\"'”’»)\]]*(?=\s|\Z)|.*\Z)", re.DOTALL)
LETTER = r"[^\W\d_]"
ELLIPSIS = re.compile(r"\.\.\.+|…")
CLITIC = re.compile(r"(?i)(?<=\w)(?:['’](?:s|m|d|ll|re|ve)|n['’]t)$")
KEPT_STOP = re.compile(rf"(?<![A-Z])[A-Z]\.$|^(?:{LETTER}\.)+$")  # "J.", "U.S.", "p.", "e.g."
ABBREVIATIONS = frozenset(
    {"Adm.", "Bros.", "Co.", "Corp.", "Dr.", "Gen.", "Gov.", "Inc.", "Jr.", "Ltd.", "Messrs.", "Mr.", "Mrs.", "Ms.",
     "Ph.D.", "Prof.", "Rep.", "Rev.", "Sen.", "St.", "vs.", "Jan.", "Feb.", "Mar.", "Apr.", "Jun.", "Jul.", "Aug.",
     "Sep.", "Sept.", "Oct.", "Nov.", "Dec.", "Ala.", "Ariz.", "Ark.", "Calif.", "Colo.", "Conn.", "Del.", "Fla.",
     "Ga.", "Ill.", "Ind.", "Kan.", "Kans.", "Ky.", "La.", "Mass.", "Md.", "Mich.", "Minn.", "Miss.", "Mo.", "Mont.",
     "Neb.", "Nebr.", "Nev.", "Okla.", "Ore.", "Pa.", "Tenn.", "Va.", "Wash.", "Wis."}
)  # fmt: skip  # spaCy's English exceptions that end a word in a full stop
URL = re.compile(r"(?i)[a-z][a-z0-9+.-]*://|www\.")
INFIX = re.compile(
    rf"((?<=[^\W_])(?:---|--|-|–|—|~)(?={LETTER})"
    r"|(?<=\d)[-+*^](?=[\d-])"
    rf"|(?<={LETTER}),(?={LETTER})"
    rf"|(?<=[^\W_])[:<>=/](?={LETTER})"
    r"|(?<=[a-z])\.(?=[A-Z])"
    rf"|{ELLIPSIS.pattern})"
)


def _edge(char: str) -> bool:
    """A character that comes off the front or back of a piece."""
    return not (char.isalnum() or char == "_")


def _kept_end(piece: str) -> bool:
    """Whether the punctuation ending `piece` stays on it: a full stop of an abbreviation, a web address's slash."""
    if piece[-1] == ".":
        return piece in ABBREVIATIONS or bool(KEPT_STOP.search(piece))
    return piece[-1] == "/" and bool(URL.search(piece))


def _peel(piece: str) -> tuple[list[str], str, list[str]]:
    """The punctuation off `piece`'s front, what is left, and what came off its back (outermost last)."""
    front, back = [], []
    while piece:
        ellipsis = ELLIPSIS.match(piece)
        if ellipsis and ellipsis.end() < len(piece):
            front.append(ellipsis.group())
            piece = piece[ellipsis.end() :]
        elif _edge(piece[0]) and len(piece) > 1:
            front.append(piece[0])
            piece = piece[1:]
        else:
            break
    while len(piece) > 1:
        clitic = CLITIC.search(piece)
        if clitic:
            back.append(clitic.group())
            piece = piece[: clitic.start()]
        elif piece.endswith(("...", "…")) and piece.rstrip(".…"):
            stripped = piece.rstrip(".…")
            back.append(piece[len(stripped) :])
            piece = stripped
        elif not _edge(piece[-1]) or _kept_end(piece):
            break
        else:
            back.append(piece[-1])
            piece = piece[:-1]
    return front, piece, back[::-1]


class EnglishSplitter(WordTokenizer):
    """Words split as spaCy's English tokenizer splits them, sentences at terminal punctuation (see the module)."""

    def __init__(self):
        super().__init__("en")

    def word_tokenize(self, text: str) -> list[str]:
        words = []
        for piece in text.split():
            if piece.isalnum():
                words.append(piece)
                continue
            front, core, back = _peel(piece)
            words += front
            words += [core] if URL.search(core) else [part for part in INFIX.split(core) if part]
            words += back
        return words

    def sent_tokenize(self, text: str) -> list[str]:
        return [match.group() for match in SENTENCE.finditer(text)]

    def span_tokenize(self, text: str) -> list[tuple[int, int]]:
        return [match.span() for match in SENTENCE.finditer(text)]
