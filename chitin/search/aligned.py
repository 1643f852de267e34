"""``check`` and ``dedupe`` judge a pair whose verdict depends on the alignment of the
words each has of its own (``judgement.depends_on_alignment``) as ``contribute``'s
door does: with that alignment (retrieval/alignment.py), from the local model's
token vectors of the two texts.

The stored vectors give whole-text cosines only; token vectors are asked for (of the
resident embedder where it answers, else of the model loaded here), and only for the
texts of those pairs. The grouping runs once noting them; their texts, each once, are
asked for in batches; the grouping runs again with the alignments (a pair it meets
only then, a chain having gone another way, asks for its two texts alone). At most
TEXTS texts and PAIRS pairs a run: the pairs beyond are judged by the cosine alone,
as before, and counted (``Grouped.without_alignment``), never silently. Where the
provider has no token vectors (another provider than the local one) the door has
none either, and the cosine decides in both; where there is no stored vector, words
decide as before and nothing is asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from chitin.index.fulltext import STOPWORDS
from chitin.providers import DEFAULT_PROVIDER, ProviderError, create
from chitin.retrieval import synonyms
from chitin.retrieval.alignment import Tokens, own_alignment, words_of
from chitin.retrieval.clusters import WORDS_ONLY, Grouping, Meaning, group
from chitin.retrieval.judgement import Side, depends_on_alignment

# Texts whose token vectors one run asks for, at most, and pairs aligned. The model's
# cost grows with a text's word pieces: 256 short claims ~0.5 s in-process, but 256
# texts of ~100 pieces ~18 s (a 1,000-insight store of the labelled claims and
# bench/run.py's made-up words, bench/check_aligned.py); 64 bounds a linter's run to a
# few seconds at worst. A pair is ~1-15 ms of plain Python (its texts' lengths).
TEXTS = 64
PAIRS = 256
BATCH = 32  # texts a question (the resident's MAX_TEXTS)

Made = Sequence[tuple[Sequence[str], Sequence[Sequence[float]]]]
TokensOf = Callable[[Sequence[str]], Made]


class Grouped(NamedTuple):
    grouping: Grouping
    # pairs whose verdict depends on the alignment, judged by the cosine alone: past
    # the budget, or the model failed
    without_alignment: int


def grouped(
    sides: Sequence[Side],
    strength: Sequence[tuple[object, ...]],
    meaning: Meaning,
    text_of: Callable[[int], str],
    tokens_of: TokensOf | None,
    budget: tuple[int, int] | None = None,
) -> Grouped:
    """``clusters.group`` with the alignment where a verdict depends on it. ``text_of``:
    an insight's whole text (``embedding_text``, what the door aligns); ``budget``:
    (texts, pairs), TEXTS and PAIRS by default."""
    if tokens_of is None or meaning is WORDS_ONLY:
        return Grouped(group(sides, strength, meaning), 0)
    aligner = _Aligner(sides, text_of, tokens_of, budget or (TEXTS, PAIRS))
    first = group(sides, strength, meaning._replace(alignment=aligner))
    if not aligner.wanted:
        return Grouped(first, 0)
    aligner.ask_wanted()
    second = group(sides, strength, meaning._replace(alignment=aligner))
    return Grouped(second, len(aligner.without))


class _Aligner:
    """The alignment of two positions, given their cosine, where their verdict depends
    on it: noted while ``noting``, then computed from the token vectors asked for."""

    def __init__(
        self,
        sides: Sequence[Side],
        text_of: Callable[[int], str],
        tokens_of: TokensOf,
        budget: tuple[int, int],
    ) -> None:
        self.sides, self.text_of, self.tokens_of = sides, text_of, tokens_of
        self.texts_left, self.pairs_left = budget
        self.noting = True
        self.wanted: dict[tuple[int, int], None] = {}
        self.tokens: dict[str, Tokens] = {}
        self.known: dict[tuple[int, int], float] = {}
        self.without: set[tuple[int, int]] = set()
        self.broken = False  # the model failed: no more questions

    def __call__(self, i: int, j: int, cosine: float) -> float | None:
        if not depends_on_alignment(self.sides[i], self.sides[j], cosine):
            return None
        pair = (i, j) if i < j else (j, i)
        if pair in self.known:
            return self.known[pair]
        if self.noting:
            self.wanted[pair] = None
            return None
        return self._align(pair)

    def ask_wanted(self) -> None:
        """The token vectors of the noted pairs' texts, each once, in batches, in the
        order the pairs were met, as far as the budget goes."""
        self.noting = False
        chosen = list(self.wanted)[: self.pairs_left]
        self._ask(list(dict.fromkeys(self.text_of(k) for pair in chosen for k in pair)))

    def _align(self, pair: tuple[int, int]) -> float | None:
        first, second = (self.text_of(k) for k in pair)
        if self.pairs_left > 0:
            self._ask([first, second])
        if self.pairs_left <= 0 or first not in self.tokens or second not in self.tokens:
            self.without.add(pair)
            return None
        self.pairs_left -= 1
        found = own_alignment(
            self.tokens[first], self.tokens[second], STOPWORDS, synonyms.canonical()
        )
        self.known[pair] = found
        return found

    def _ask(self, texts: Sequence[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self.tokens]
        missing = missing[: max(0, self.texts_left)]
        for at in range(0, len(missing), BATCH):
            if self.broken:
                return
            batch = missing[at : at + BATCH]
            try:
                made = self.tokens_of(batch)
            except ProviderError:
                self.broken = True
                return
            self.texts_left -= len(batch)
            for text, (pieces, rows) in zip(batch, made, strict=True):
                self.tokens[text] = Tokens(words_of(pieces), tuple(_plain(r) for r in rows))


def _plain(row: Sequence[float]) -> list[float]:
    """A token's vector as Python floats (an array('f') row or a list)."""
    return list(row)


class TokenSource:
    """The token vectors of the provider chitin.yaml names, made on the first question
    (a linter with nothing to align loads nothing), through the door's path: the
    resident embedder where it answers, else the model loaded here. ``close`` lets it
    go."""

    def __init__(self, provider: str, model: str | None, env: Mapping[str, str]) -> None:
        self.name, self.model, self.env = provider, model, env
        self.made: Any = None

    def __call__(self, texts: Sequence[str]) -> Made:
        if self.made is None:
            # No work folder: check writes nothing in the store (the model's checksum
            # is verified again, ~50 ms, where the door keeps its verification).
            self.made = create(self.name, self.model, env=self.env)
        found: Made = self.made.tokens(texts)
        return found

    def close(self) -> None:
        closing = getattr(self.made, "close", None)
        if closing is not None:
            closing()


def token_source(provider: str, model: str | None, env: Mapping[str, str]) -> TokenSource | None:
    """Where check and dedupe get token vectors: only the local provider gives them,
    as at the door (``door._aligned``); with another, the cosine decides in both."""
    return TokenSource(provider, model, env) if provider == DEFAULT_PROVIDER else None
