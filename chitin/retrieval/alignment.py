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

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from chitin.model.vector_math import dot


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


def own_alignment(
    first: Tokens,
    second: Tokens,
    stopwords: Collection[str],
    heads: Mapping[str, str] | None = None,
) -> float:
    """F of the tokens each text has of its own (see the module's docstring).
    ``heads``: each word's synonym group's first word (synonyms.canonical()); a token
    whose word has a synonym among the other text's own words aligns fully with it."""
    same = heads or {}
    mine = _own(first, set(second.words), stopwords, same)
    theirs = _own(second, set(first.words), stopwords, same)
    if not mine or not theirs:
        return 0.0
    their_heads = {head for head, _ in theirs} - {""}
    my_heads = {head for head, _ in mine} - {""}
    precision = sum(_best(row, head, theirs, their_heads) for head, row in mine) / len(mine)
    recall = sum(_best(row, head, mine, my_heads) for head, row in theirs) / len(theirs)
    if precision + recall <= 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


Own = list[tuple[str, Sequence[float]]]  # a token's synonym head ("" if none), its row


def _own(
    tokens: Tokens, others: Collection[str], stopwords: Collection[str], heads: Mapping[str, str]
) -> Own:
    """The rows of the content words the other text lacks; all rows if there are none."""
    kept = [
        (heads.get(word, ""), row)
        for word, row in zip(tokens.words, tokens.rows, strict=True)
        if word not in others and word not in stopwords and any(c.isalnum() for c in word)
    ]
    return kept or [("", row) for row in tokens.rows]


def _best(row: Sequence[float], head: str, others: Own, heads: Collection[str]) -> float:
    if head and head in heads:
        return 1.0
    return max(dot(row, other) for _, other in others)
