"""How near two texts are in the words each has of its own: a token alignment
(BERTScore's F) over the tokens the other text lacks (pure).

Two paraphrases share some words and say the rest in other words ("Profile before
optimising" / "Measure performance before trying to optimize it"); two look-alikes
share most words and differ in a slot ("Never commit secrets …" / "Never commit
generated files …"). The pooled cosine of the whole texts mixes both and cannot
tell them apart (docs/design.md §9e, sixth round); the tokens each side has of its
own, aligned, can: synonyms align, two fillers of one slot do not.

A token is the model's output for one word piece before pooling, as a unit vector;
its word is the whole word the piece belongs to. Stopwords and punctuation are left
out, as are the words both texts have. Each remaining token's best cosine to the
other side's remaining tokens is averaged over its side (P one way, R the other);
the alignment is F = 2PR / (P + R). A side with no word of its own is aligned with
all its tokens (the other's own words against the whole of it).
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Sequence
from typing import NamedTuple


class Tokens(NamedTuple):
    """A text's token vectors ([CLS] and [SEP] left out) and each token's word."""

    words: tuple[str, ...]
    rows: tuple[Sequence[float], ...]


def words_of(pieces: Sequence[str]) -> tuple[str, ...]:
    """Each word piece's whole word: a "##" piece joins the pieces before it back to
    its word's first ("optim", "##ising" → "optimising" twice)."""
    spans: list[list[int]] = []
    for at, piece in enumerate(pieces):
        if piece.startswith("##") and spans:
            spans[-1].append(at)
        else:
            spans.append([at])
    words: list[str] = []
    for span in spans:
        word = "".join(pieces[at].removeprefix("##") for at in span)
        words.extend(word for _ in span)
    return tuple(words)


def own_alignment(first: Tokens, second: Tokens, stopwords: Collection[str]) -> float:
    """F of the tokens each text has of its own (see the module's docstring)."""
    mine = _own(first, set(second.words), stopwords)
    theirs = _own(second, set(first.words), stopwords)
    if not mine or not theirs:
        return 0.0
    precision = sum(_best(row, theirs) for row in mine) / len(mine)
    recall = sum(_best(row, mine) for row in theirs) / len(theirs)
    if precision + recall <= 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _own(
    tokens: Tokens, others: Collection[str], stopwords: Collection[str]
) -> list[Sequence[float]]:
    """The rows of the content words the other text lacks; all rows if there are none."""
    kept = [
        row
        for word, row in zip(tokens.words, tokens.rows, strict=True)
        if word not in others and word not in stopwords and any(c.isalnum() for c in word)
    ]
    return kept or list(tokens.rows)


def _best(row: Sequence[float], others: Sequence[Sequence[float]]) -> float:
    return max(float(sum(map(operator.mul, row, other))) for other in others)
