"""fix90: two different claims the judgement cannot read were called duplicates.

Two claims of one-letter words ("a a a …" against "b b b …", or two random sequences
of letters) have no topic word and no pole: their topics' overlap counted as whole
(1.0, meant for two claims that are a stance and nothing else), so a cosine of
SUPPORTED_COSINE made them duplicates, and without vectors they were the same words.
And the local model reads a text's first 128 tokens only: two long random sequences
embed at 0.96, two different long claims with one opening at 1.0."""

from __future__ import annotations

import random
from typing import Any

from chitin.providers.minilm import MAX_TOKENS
from chitin.retrieval import unread
from chitin.retrieval.judgement import DUPLICATE, NONE, Side, judge


def letters(seed: int, count: int = 5000) -> str:
    chosen = random.Random(seed)
    return " ".join(chosen.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(count))


def skill(claim: str) -> Side:
    return Side("skill", claim)


def test_claims_of_one_letter_words_are_not_duplicates_by_their_empty_topics() -> None:
    a, b = skill(" ".join(["a"] * 5000)), skill(" ".join(["b"] * 5000))
    assert judge(a, b, 0.62).kind == NONE  # the model's cosine of the two
    assert judge(a, b, 0.62, alignment=1.0).kind == NONE  # and whatever their alignment
    assert judge(a, b, None).kind == NONE  # by words: nothing in common
    assert judge(a, a, None).kind == DUPLICATE  # the same claim still is


def test_two_long_claims_are_not_duplicates_by_the_cosine_of_their_openings() -> None:
    first, second = skill(letters(1)), skill(letters(2))
    assert judge(first, second, 0.963).kind == NONE  # what the local model gives
    opening = "Reproduce the failing test before changing the parser code " * 15  # 135 words
    one = skill(opening + "then profile the slow queries of the reporting database")
    other = skill(opening + "then ask the designers about the colour of every button")
    assert judge(one, other, 1.0).kind == NONE  # the model read the same opening only
    same = skill(opening + "and then profile the slow queries of the reporting database")
    assert judge(one, same, 1.0).kind == DUPLICATE == judge(one, same, None).kind  # by words


def test_short_claims_keep_their_judgement() -> None:
    assert judge(skill("Be brief"), skill("Be concise"), 0.8).kind == DUPLICATE
    assert judge(
        skill("Reproduce a bug before fixing it"), skill("Reproduce the bug before you fix it"), 0.9
    ).kind == (DUPLICATE)


def test_the_reach_is_the_local_models() -> None:
    assert unread.MODEL_WORDS == MAX_TOKENS - 2  # [CLS] and [SEP]; a word is a token or more


def test_contribute_does_not_call_two_random_sequences_of_letters_duplicates(
    run: Any, run_json: Any
) -> None:
    run_json("contribute", "--type", "skill", "--claim", letters(1), "--confidence", "0.8")
    run("embed")
    made = run_json("contribute", "--type", "skill", "--claim", letters(2), "--confidence", "0.8")
    assert made["duplicates"] == [] and made["conflicts"] == []
