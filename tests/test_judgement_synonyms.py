"""Synonyms where the judgement compares words (chitin/assets/synonyms.txt): the topic
words of a claim (retrieval/wording.py) and the alignment of the words each insight
has of its own (retrieval/alignment.py). Pure, with the shipped table."""

from __future__ import annotations

import pytest

from chitin.retrieval import wording
from chitin.retrieval.alignment import Tokens, own_alignment
from chitin.retrieval.judgement import DUPLICATE, NONE, Side, judge
from chitin.retrieval.stance import stance

STOP = frozenset({"the", "a", "it"})


def test_a_synonym_aligns_fully_with_the_word_of_its_group() -> None:
    x, y = (1.0, 0.0), (0.6, 0.8)
    # "mistake" and "error" embed 0.6 apart here; one group of the table makes them 1
    first = Tokens(("admit", "the", "mistake"), (x, x, x))
    second = Tokens(("admit", "the", "error"), (x, x, y))
    assert own_alignment(first, second, STOP) == pytest.approx(0.6)
    heads = {"mistake": "mistake", "error": "mistake"}
    assert own_alignment(first, second, STOP, heads) == pytest.approx(1.0)
    # a word of no group still aligns by its vector
    third = Tokens(("admit", "the", "slip"), (x, x, y))
    assert own_alignment(first, third, STOP, heads) == pytest.approx(0.6)


def test_synonyms_are_one_topic_word() -> None:
    mistakes = "Write down every mistake you make in production."
    errors = "Write down all errors you make in prod."
    assert stance(mistakes).topic != stance(errors).topic  # the words alone differ
    assert wording.read(mistakes).topic == wording.read(errors).topic
    assert wording.read("Pin the versions").topic == wording.read("Lock the versions").topic


def test_a_phrase_of_the_table_is_its_group_word() -> None:
    assert wording.read("Find out the cause").topic == wording.read("Discover the cause").topic
    assert wording.synonymous(["find", "out"]) == wording.synonymous(["discover"])
    assert wording.synonymous(["find"]) == ["find"]  # a phrase's first word alone


def test_synonyms_share_the_topic_the_judgement_reads() -> None:
    # half the topic words once synonyms count, and a cosine under the bar but over
    # SUPPORTED_COSINE: one lesson
    first = Side("skill", "Write down every mistake you make in production.")
    second = Side("skill", "Write down all errors you make in prod.")
    assert judge(first, second, 0.66).kind == DUPLICATE
    wording.read.cache_clear()
    try:
        wording.SYNONYMS = False
        assert judge(first, second, 0.66).kind == NONE
    finally:
        wording.SYNONYMS = True
        wording.read.cache_clear()
