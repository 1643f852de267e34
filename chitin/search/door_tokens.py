"""The token vectors the door's alignment reads (retrieval/alignment.py), asked for
while git commits rather than after.

The alignment is read only for the candidates whose cosine falls where the cosine
alone is not trusted (``judgement.depends_on_alignment``), at most ALIGNED of them,
the closest first. Which those are is known once every cosine is, and the door's
verdicts come after the commit (search/door.py). Asked then, the token vectors cost
a contribute a round of the model after git's commit (16-82 ms for four of
perf-vs-orig's eight claims at 1,000 embedded insights: docs/design.md §9p).

Where every vector is known in the door's first half (an embedded store: the stored
ones, and the new text's from its search), the cosines are too, and so are the texts
the verdicts will need: they are asked then, of a resident embedder that computes
them while git stages and commits. Where a vector is still to come (a candidate
without a stored one, a trigger's response), the texts are asked after, as before: a
guess asked beside (the new text and the candidates that might need it) cost a store
without vectors ~7 ms a contribute in the resident's unneeded work, for no claim of
perf-vs-orig's that needed it. Without a resident nothing is asked early: the texts
needed are embedded in this process after the commit, and only those. The verdicts
are the same either way: a text's token vectors do not depend on the texts asked
beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from chitin.index.fulltext import STOPWORDS
from chitin.model.insight import Insight
from chitin.model.search_text import embedding_text
from chitin.providers import ProviderError
from chitin.retrieval import synonyms
from chitin.retrieval.alignment import Tokens, own_alignment, words_of
from chitin.retrieval.judgement import Side, depends_on_alignment, side_of

if TYPE_CHECKING:
    from chitin.search.semantic import Semantic

# A text's word pieces and their token vectors (providers/local.py's TokenRows, named
# here without importing the provider).
TokenRows = tuple[Sequence[str], Sequence[Sequence[float]]]


class TokensLater(Protocol):
    """A question for token vectors sent, its answer to take or drop (providers/
    local.py's ``tokens_later``)."""

    def take(self) -> Sequence[TokenRows] | None: ...

    def drop(self) -> None: ...


# Candidates whose token vectors are asked for, at most (the closest by cosine): the
# resident's answer for the new text and 8 is ~30 ms, for 16 ~60 ms (bench/dedup/align.py
# --cost); the others are judged by the cosine alone.
ALIGNED = 8


def wanted(
    side: Side,
    chosen: Sequence[Insight],
    cosines: Mapping[str, float],
    responses: Mapping[str, float],
) -> list[Insight]:
    """The candidates whose verdict the alignment may change, the closest first."""
    found = [
        i
        for i in chosen
        if depends_on_alignment(side, side_of(i), cosines[i.id], responses.get(i.id))
    ]
    return sorted(found, key=lambda i: -cosines[i.id])[:ALIGNED]


class TokenSource:
    """The token vectors of texts, from a question asked early where one was."""

    def __init__(self, semantic: Semantic) -> None:
        self._tokens: Callable[[Sequence[str]], Sequence[TokenRows]] | None = getattr(
            semantic.provider, "tokens", None
        )
        self._later: Callable[[Sequence[str]], TokensLater | None] | None = getattr(
            semantic.provider, "tokens_later", None
        )
        self._asked: list[str] = []
        self._arriving: TokensLater | None = None
        self._got: dict[str, TokenRows] = {}

    @property
    def available(self) -> bool:
        return self._tokens is not None

    def ask(self, texts: Sequence[str]) -> None:
        """Ask now for ``texts``' token vectors, of a resident embedder if one answers."""
        if self._later is not None and len(texts) > 1:
            self._arriving = self._later(texts)
            self._asked = list(texts) if self._arriving is not None else []

    def get(self, texts: Sequence[str]) -> list[TokenRows]:
        """``texts``' token vectors: from the early answer, the rest computed now."""
        arriving, self._arriving = self._arriving, None
        if arriving is not None:
            answered = arriving.take()
            if answered is not None:
                self._got.update(zip(self._asked, answered, strict=True))
        lacking = [t for t in dict.fromkeys(texts) if t not in self._got]
        if lacking and self._tokens is not None:
            self._got.update(zip(lacking, self._tokens(lacking), strict=True))
        return [self._got[t] for t in texts]

    def drop(self) -> None:
        """Let an early question nobody needed go unread."""
        arriving, self._arriving = self._arriving, None
        if arriving is not None:
            arriving.drop()


def ask_early(
    source: TokenSource,
    side: Side,
    text: str,
    chosen: Sequence[Insight],
    known: Callable[[str], Sequence[float] | None],
    cosine: Callable[[Sequence[float], Sequence[float]], float],
) -> None:
    """In the door's first half: ask for the token vectors the verdicts will need,
    where every cosine is known then (see the module's docstring). ``known`` gives a
    text's vector if it is known now; a trigger response's cosine never is."""
    new = known(text)
    if not source.available or new is None:
        return
    if any(side.type == i.type == "trigger" for i in chosen):
        return
    cosines = {}
    for insight in chosen:
        vector = known(embedding_text(insight))
        if vector is None:
            return  # a verdict waits for a vector: its tokens are asked after, if needed
        cosines[insight.id] = cosine(new, vector)
    needed = wanted(side, chosen, cosines, {})
    if needed:
        source.ask([text, *(embedding_text(i) for i in needed)])


def aligned(
    source: TokenSource,
    insight: Insight,
    chosen: Sequence[Insight],
    cosines: dict[str, float],
    responses: dict[str, float],
) -> dict[str, float]:
    """The alignment of the words of their own (retrieval/alignment.py) of the new
    insight and each candidate whose verdict depends on it: a cosine in the band
    where the cosine alone is not trusted, and nothing else deciding. Only the local
    model gives token vectors, for these texts alone (the resident's, where it
    answers); without them, the cosine decides as before."""
    side = side_of(insight)
    needed = wanted(side, chosen, cosines, responses)
    if not source.available or not needed:
        source.drop()
        return {}
    try:
        made = source.get([embedding_text(insight)] + [embedding_text(i) for i in needed])
    except ProviderError:
        return {}
    new = _tokens(made[0])
    return {
        i.id: own_alignment(new, _tokens(found), STOPWORDS, synonyms.canonical())
        for i, found in zip(needed, made[1:], strict=True)
    }


def _tokens(made: tuple[Sequence[str], Sequence[Sequence[float]]]) -> Tokens:
    pieces, rows = made
    return Tokens(words_of(pieces), tuple(_plain(row) for row in rows))


def _plain(vector: Any) -> list[float]:
    """A vector (a numpy row, an array, a list) as Python floats."""
    return list(vector.tolist() if hasattr(vector, "tolist") else vector)
