"""Similarity, duplicates and conflicts, checked against the original's reference values
where we keep its behaviour and against the documented intent where we fix it."""

from __future__ import annotations

import pytest

from chitin.model.terms import jaccard, stem, stemmed_tokens, tokens
from chitin.retrieval.conflicts import (
    OVERLAP_REASON,
    Candidate,
    compare,
    polarity,
    similar,
    tension,
    tension_value,
)


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


def test_tension_follows_the_documented_curve() -> None:
    assert [round(tension_value(k), 2) for k in range(4)] == [0.0, 0.4, 0.6, 0.73]


@pytest.mark.parametrize(
    ("new", "old", "pairs"),
    [
        (
            "Boss prefers detailed verbose explanations",
            "Boss values concise brief responses",
            [
                '"verbose" ↔ "concise"',
                '"verbose" ↔ "brief"',
                '"detailed" ↔ "concise"',
                '"detailed" ↔ "brief"',
            ],
        ),
        (
            "Always ask before taking action",
            "Act first on clear tasks, explain later",
            ['"ask" ↔ "act"'],
        ),
        (
            "Use formal professional tone in messages",
            "Keep it casual and relaxed",
            ['"formal" ↔ "casual"', '"professional" ↔ "casual"'],
        ),
        ("Boss values directness and efficiency", "Boss prefers direct communication style", []),
        ("verbose and concise", "concise and verbose", []),
        ("verbose and concise", "concise", []),  # a balanced claim is not a contradiction
        ("be quickly done", "be deliberate", ['"deliberate" ↔ "quick"']),  # stemming fixed
    ],
)
def test_tension_pairs(new: str, old: str, pairs: list[str]) -> None:
    assert tension(polarity(new), polarity(old)) == pairs


def test_negation_turns_a_contradiction_into_agreement() -> None:
    assert tension(polarity("Don't be verbose"), polarity("Be concise")) == []
    assert tension(polarity("Avoid verbose answers"), polarity("Be verbose")) == [
        '"verbose" ↔ "not verbose"'
    ]
    assert tension(polarity("Never be wordy"), polarity("Keep replies terse")) == []


def test_a_conflict_is_reported_with_its_score() -> None:
    duplicates, conflicts = compare(
        "Boss prefers detailed verbose explanations",
        stored("Boss values concise brief responses", "TDD means writing tests first"),
    )
    assert duplicates == []
    assert [c.id for c in conflicts] == ["id-0"]
    match = conflicts[0]
    assert match.tension_score == pytest.approx(tension_value(4))
    assert match.conflict_score == pytest.approx(0.3 * match.similarity + 0.7 * match.tension_score)


def test_exact_and_near_duplicates_are_duplicates_not_conflicts() -> None:
    duplicates, conflicts = compare(
        "On clear tasks, execute first, narrate minimally",
        stored(
            "on clear tasks, execute first and narrate minimally",
            "On clear tasks, execute first, narrate minimally",
        ),
    )
    assert [d.id for d in duplicates] == ["id-1", "id-0"]
    assert duplicates[0].similarity == 1.0
    assert conflicts == []


def test_high_overlap_without_tension_is_a_weak_conflict() -> None:
    _, conflicts = compare(
        "Prefer small commits with clear messages in shared repos",
        stored("Prefer small commits in shared repos"),
    )
    assert [c.tension_reason for c in conflicts] == [OVERLAP_REASON]


def test_unrelated_claims_do_not_conflict() -> None:
    assert compare(
        "I find testing more satisfying than debugging", stored("I enjoy debugging code")
    ) == ([], [])


def test_similar_uses_plain_jaccard_and_the_threshold() -> None:
    pool = stored("TDD: red, green, refactor cycle works best", "Boss likes coffee")
    found = similar("TDD red green refactor", pool, 0.2)
    assert [(c.id, round(s, 4)) for c, s in found] == [("id-0", 0.5714)]
    assert len(similar("TDD red green refactor", pool, 0.0)) == 2
    assert similar("a an", pool, 0.0) == []


def test_stemmed_tokens_keep_the_word_and_add_its_stem() -> None:
    assert stemmed_tokens("carefully explained") == {"carefully", "careful", "explained", "explain"}
