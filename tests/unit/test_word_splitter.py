"""The quality rules' word splitter splits as spaCy's English tokenizer does (datatrove's own splitter): the expected
lists are spaCy 3.8.18's `spacy.blank("en")` words for the same texts."""

import pytest
from datatrove.data import Document
from datatrove.pipeline.filters import GopherQualityFilter
from tokenizers.pre_tokenizers import BertPreTokenizer

from snakebert.data.word_tokenizer import EnglishSplitter

SPACY_WORDS = {
    "Abraham Lincoln (February 12, 1809 – April 15, 1865) was the 16th President of the U.S. in 1861-1865.": [
        "Abraham", "Lincoln", "(", "February", "12", ",", "1809", "–", "April", "15", ",", "1865", ")", "was",
        "the", "16th", "President", "of", "the", "U.S.", "in", "1861", "-", "1865", ".",
    ],
    "Self-governed societies, e.g. Spain's, cost $1,000.50 (about 3.5%) and more... \"Really?\" she said; don't.": [
        "Self", "-", "governed", "societies", ",", "e.g.", "Spain", "'s", ",", "cost", "$", "1,000.50", "(", "about",
        "3.5", "%", ")", "and", "more", "...", '"', "Really", "?", '"', "she", "said", ";", "do", "n't", ".",
    ],
    "See http://www.kas.de/wf/de/33.15186/ or mail me@x.org. J. R. R. Tolkien's work #tag U.K. Mr. Smith, p. 12.": [
        "See", "http://www.kas.de/wf/de/33.15186/", "or", "mail", "me@x.org", ".", "J.", "R.", "R.", "Tolkien",
        "'s", "work", "#", "tag", "U.K.", "Mr.", "Smith", ",", "p.", "12", ".",
    ],
    "He left.Then 'quoted' text—dash and x=y a<b 3+4 ok!? (nested [brackets]) 19th-century 1990s' Gen. Lee": [
        "He", "left", ".", "Then", "'", "quoted", "'", "text", "—", "dash", "and", "x", "=", "y", "a", "<", "b", "3",
        "+", "4", "ok", "!", "?", "(", "nested", "[", "brackets", "]", ")", "19th", "-", "century", "1990s", "'",
        "Gen.", "Lee",
    ],
    "Angola's GDP grew 12% in 2007; ca. 40 per cent... at 5 p.m. on Jan. 3, 1990 in Wash. (see p. 7)": [
        "Angola", "'s", "GDP", "grew", "12", "%", "in", "2007", ";", "ca", ".", "40", "per", "cent", "...", "at",
        "5", "p.m.", "on", "Jan.", "3", ",", "1990", "in", "Wash.", "(", "see", "p.", "7", ")",
    ],
}  # fmt: skip

ARTICLE = (
    "The census of the state counted 4,903,185 people who lived in the towns and the farms of the valley and the "
    "hills, and the survey of the land found that the people of the state held 52,420,113 acres of which the farmers "
    "worked 12,345,678 acres with the help of 1,234,567 workers who came from the cities and the towns of the north "
    "and the south to the fields of the state in the spring and the summer of the year when the crops were sown. "
) * 2


@pytest.mark.parametrize("text", SPACY_WORDS)
def test_words_are_spacys(text):
    assert EnglishSplitter().word_tokenize(text) == SPACY_WORDS[text]


def test_a_numeric_article_keeps_gophers_alpha_rule_that_every_punctuation_word_would_fail():
    """A paragraph with large numbers: 93% of its words have a letter when "4,903,185" is one word (spaCy's words,
    ours); splitting every punctuation character off, as the rules did before, counts 79% and removed it."""
    bert_words = [word for word, _ in BertPreTokenizer().pre_tokenize_str(ARTICLE)]
    assert sum(any(char.isalpha() for char in word) for word in bert_words) / len(bert_words) < 0.8
    verdict = GopherQualityFilter(language=EnglishSplitter()).filter(Document(text=ARTICLE, id="0"))
    assert verdict is True
