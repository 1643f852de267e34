"""The overlap of two claims' topics, and what the judgement's evidence cannot speak
of (pure): two claims with no word the stance rules read, and a text longer than the
model reads.

- Two claims with no topic word and no pole ("a a a …" and "b b b …": one-letter words
  are no topic) share nothing the rules can see; their overlap is none, not the whole
  overlap of two claims that are a stance and nothing else ("be brief" / "be
  thorough").
- The local model (all-MiniLM-L6-v2) reads a text's first 128 tokens, [CLS] and [SEP]
  among them, and a word is one token or more: past MODEL_WORDS words, the cosine is
  of the openings only (two random sequences of 5,000 letters embed at 0.96, two
  claims with one long opening at 1.0), so such a pair is judged by its words, as
  without vectors.
"""

from __future__ import annotations

import functools

from chitin.retrieval.stance import Stance, words_of

MODEL_WORDS = 126


def topic_overlap(first: frozenset[str], second: frozenset[str]) -> float:
    """The Jaccard overlap of two topics (the judgement's ``overlap``)."""
    if not first and not second:
        return 1.0  # "be brief" and "be thorough": nothing but the stance
    return len(first & second) / len(first | second)


def nothing_read(mine: Stance, theirs: Stance) -> bool:
    """Whether neither claim has a topic word or a pole."""
    return not (mine.topic or theirs.topic or mine.poles or theirs.poles)


def past_the_model(first: str, second: str) -> bool:
    """Whether either text holds more words than the model reads."""
    return _words(first) > MODEL_WORDS or _words(second) > MODEL_WORDS


@functools.lru_cache(maxsize=1 << 16)
def _words(text: str) -> int:
    return len(words_of(text))
