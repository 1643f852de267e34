"""Word similarity (``similar``, the terms of the index), checked against the original's
reference values where we keep its behaviour. The duplicate and conflict judgement is
tested in test_judgement.py."""

from __future__ import annotations

import pytest

from chitin.model.terms import jaccard, stem, stemmed_tokens, tokens
from chitin.retrieval.conflicts import Candidate, similar


def stored(*claims: str) -> list[Candidate]:
    return [Candidate(f"id-{n}", "relational", claim) for n, claim in enumerate(claims)]


def test_plain_jaccard_matches_the_reference() -> None:
    assert jaccard(
        tokens("TDD red green refactor"), tokens("TDD: red, green, refactor cycle works best")
    ) == pytest.approx(4 / 7)
    base = tokens("On clear tasks, execute first, narrate minimally")
    assert jaccard(base, tokens("On clear tasks, execute first and narrate minimally")) == (
        pytest.approx(6 / 7)
    )
    assert jaccard(base, tokens("Execute tasks quickly, narrate only when needed")) == 0.3


def test_tokens_use_ascii_word_splitting() -> None:
    assert tokens("café au lait, ok") == {"caf", "lait"}


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("directness", "direct"),
        ("quickly", "quick"),
        ("carefully", "careful"),
        ("explained", "explain"),
        ("decisively", "decisive"),
        ("brevity", "brief"),
        ("waiting", "wait"),
        ("being", "being"),  # a suffix is stripped only if three letters remain
    ],
)
def test_the_stemmer_applies_the_first_matching_rule(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_similar_uses_plain_jaccard_and_the_threshold() -> None:
    pool = stored("TDD: red, green, refactor cycle works best", "Boss likes coffee")
    found = similar("TDD red green refactor", pool, 0.2)
    assert [(c.id, round(s, 4)) for c, s in found] == [("id-0", 0.5714)]
    assert len(similar("TDD red green refactor", pool, 0.0)) == 2
    assert similar("a an", pool, 0.0) == []


def test_stemmed_tokens_keep_the_word_and_add_its_stem() -> None:
    assert stemmed_tokens("carefully explained") == {"carefully", "careful", "explained", "explain"}
