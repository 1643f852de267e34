"""The text an insight is found by: what is embedded of it (and the hash that says when
a vector is stale), and a query made fit for SQLite and the tokenizer."""

from __future__ import annotations

# The interpreter's own BLAKE2 (hashlib's is the same function): importing hashlib loads
# OpenSSL, ~3 ms of every write that stores a row (docs/design.md §9l).
from _blake2 import blake2b

from chitin.model.insight import Insight


def embedding_text(insight: Insight) -> str:
    """What an embedding of the insight is made from: the claim, the situation it is for,
    its context and its reasoning. A change to any of them makes the vector stale."""
    parts = [insight.claim]
    if insight.condition:
        parts.append(f"When {insight.condition}")
    parts.extend(p for p in (insight.context, insight.reasoning) if p)
    return " — ".join(parts)


def embedding_texts(insight: Insight) -> tuple[str, ...]:
    """The texts an insight is found by in meaning, each a part with a vector of its
    own: the whole (``embedding_text``), a trigger's condition alone, and the reasoning
    alone. A situation ("I forgot to run the linter again") is nearer to the condition
    it fires on ("I make the same mistake twice") than to the condition diluted by the
    claim, context and reasoning: on bench/eval/agent-store.yaml the condition's own
    vector lifts the trigger queries' nDCG@10 by 0.06. Likewise a query that says why
    ("nobody owns up when they get told off") is near the reasoning ("blame makes people
    hide mistakes") and far from the claim it explains (docs/design.md §6b). Each part
    is in ``embedding_text``, and the last (the whole text with the tags, ``tagged_text``)
    in ``vector_hash``, so the hash says when any of them is stale."""
    parts = [embedding_text(insight)]
    parts.extend(p for p in (insight.condition, insight.reasoning) if p)
    if insight.tags:
        parts.append(tagged_text(insight))
    return tuple(parts)


def tagged_text(insight: Insight) -> str:
    """The whole text with the insight's tags after it, a part of its own (retrieval
    only: the judgement compares the whole text's vectors, part 0). Tags name in a word
    what the text says through a name or a detail ("dog" for Bris's recall word,
    "sailing" for a gust limit), and an everyday query names it that way: on the eight
    bench/eval sets nDCG@10 rises on each, paraphrases by 0.014 on average
    (docs/design.md §6b, round 9)."""
    return f"{embedding_text(insight)} ({', '.join(insight.tags)})"


def vector_hash(insight: Insight) -> str:
    """What an insight's vectors must match to be current: the hash of its embedding
    text, and of its tags when it has any (their part holds them), so that a change to
    either makes them stale. Without tags it is the embedding text's hash alone."""
    text = embedding_text(insight)
    if insight.tags:
        text = f"{text}\n{TAGS_MARK}{', '.join(insight.tags)}"
    return text_hash(text)


# What separates the tags from the text in ``vector_hash``: no text holds it, so an
# embedding text never hashes as another's with tags.
TAGS_MARK = "\x00tags:"


def text_hash(text: str) -> str:
    return blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def well_formed(text: str) -> str:
    """``text`` with each lone surrogate (a byte that was not UTF-8, as Python decodes a
    command line or a file name) replaced by U+FFFD, so that SQLite and the tokenizer
    can take it: a query is matched as well as it can be, never refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # (A regular expression for the surrogate range cost 1.7 ms to compile.)
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text
