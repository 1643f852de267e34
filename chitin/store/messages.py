"""The commit messages chitin writes: a subject, a body, and ``Chitin-*`` trailers that
history.py parses back (the op and the trailers; the subjects are for people reading
``git log``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from chitin.model.insight import Insight

TRAILER_PREFIX = "Chitin-"
# In a migration commit's message, this line precedes chitin 1.x's history rows, one
# JSON object per line, so that the history of a migrated insight loses nothing.
LEGACY_HISTORY_HEADER = "chitin 1.x history (one JSON row per line):"


# The most of one free text (a claim, a reinforce's source) that a commit message
# carries, ellipsis included: the insight's file keeps the whole text, and `git log`
# (and every history read) need not carry a megabyte of it (docs/commands.md).
MESSAGE_TEXT = 1000
# The trailers that carry free text; the others (ids, the op) are read back whole.
_FREE_TRAILERS = frozenset({"Source"})


def clipped(text: str) -> str:
    """``text`` as a commit message carries it: at most MESSAGE_TEXT characters."""
    return text if len(text) <= MESSAGE_TEXT else text[: MESSAGE_TEXT - 1].rstrip() + "…"


def commit_message(
    op: str, subject: str, body: Sequence[str], trailers: Mapping[str, str | None]
) -> str:
    """``subject``, an optional body, then ``Chitin-*`` trailers (one line each; one of
    free text clipped)."""
    lines = [_one_line(subject)[:200], ""]
    if body:
        lines.extend([*body, ""])
    lines.append(f"Chitin-Op: {op}")
    for key, value in trailers.items():
        if value:
            line = _one_line(value)
            line = clipped(line) if key in _FREE_TRAILERS else line
            lines.append(f"{TRAILER_PREFIX}{key}: {line}")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def trailers_of(message: str) -> dict[str, str]:
    """The ``Chitin-*`` trailers of a commit message, without their prefix."""
    found: dict[str, str] = {}
    for line in message.splitlines():
        if line.startswith(TRAILER_PREFIX) and ": " in line:
            key, value = line[len(TRAILER_PREFIX) :].split(": ", 1)
            found.setdefault(key, value.strip())
    return found


# ------------------------------------------------ the wording of chitin's own commits
# What each operation says in its subject and body; the readers below parse it back
# (the op and the trailers; the subjects are for people reading ``git log``).


class Words(NamedTuple):
    op: str
    subject: str
    body: list[str]


def short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def seed_words(ids: Sequence[str]) -> Words:
    noun = "insight" if len(ids) == 1 else "insights"
    return Words("seed", f"Seed {len(ids)} starter {noun}", [f"- {i}" for i in ids])


def contribute_words(insight: Insight, imported: bool) -> Words:
    """A new insight; ``imported``: from a Carapace contribution."""
    if imported:
        subject = f"Import {insight.type} from Carapace: {short(insight.claim)}"
        return Words("import-carapace", subject, [clipped(insight.claim)])
    subject = f"Contribute {insight.type}: {short(insight.claim)}"
    return Words("contribute", subject, [clipped(insight.claim)])


def update_words(insight_id: str, before: Insight, after: Insight) -> Words:
    from chitin.model.diff import field_changes  # updates only: not every write's start

    changed = field_changes(before, after)
    body = [f"{c.field}: {short(c.old or '')!r} → {short(c.new or '')!r}" for c in changed]
    subject = f"Update {insight_id}: {', '.join(c.field for c in changed) or 'text'}"
    return Words("update", subject, body)


def reinforce_words(insight_id: str, before: Insight, after: Insight) -> Words:
    subject = (
        f"Reinforce {insight_id}: confidence {before.confidence} → "
        f"{after.confidence} ({after.reinforcements}×)"
    )
    return Words("reinforce", subject, [])


def promote_words(insight_id: str, carapace_id: str) -> Words:
    return Words("promote", f"Promote {insight_id} to Carapace as {carapace_id}", [])


def move_words(insight_id: str, claim: str, to_archive: bool) -> Words:
    op = "archive" if to_archive else "unarchive"
    return Words(op, f"{op.capitalize()} {insight_id}: {short(claim)}", [])


def merge_words(
    source_ids: Sequence[str], target_id: str, source_claims: Sequence[str], result_claim: str
) -> Words:
    """One source is named in the subject; several (``dedupe``'s merges, a cluster of
    999) are counted there and listed in the body, one id a line, so that the subject
    stays one short line. The ``Chitin-Merged`` trailer (history's) names them all."""
    body = [*(f"merged: {clipped(claim)}" for claim in source_claims)]
    body.append(f"into: {clipped(result_claim)}")
    if len(source_ids) == 1:
        return Words("merge", f"Merge {source_ids[0]} into {target_id}", body)
    listed = [f"- {i}" for i in source_ids]
    return Words("merge", f"Merge {len(source_ids)} insights into {target_id}", [*listed, *body])


def embedding_words(provider: str, model: str | None) -> Words:
    return Words("config", f"Embed with {provider}" + (f"/{model}" if model else ""), [])


def worded(words: Words, trailers: Mapping[str, str | None]) -> str:
    """The commit message for ``words``."""
    return commit_message(words.op, words.subject, words.body, trailers)


@functools.lru_cache(maxsize=2)
def carried_rows(message: str) -> dict[str, list[dict[str, Any]]]:
    """The 1.x history rows a migration or import commit carries (after
    ``LEGACY_HISTORY_HEADER``), by insight id; parsed once for all its insights."""
    rows: dict[str, list[dict[str, Any]]] = {}
    _, found, block = message.partition(LEGACY_HISTORY_HEADER)
    for line in block.splitlines() if found else ():
        if not line.startswith("{"):
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a hand-edited message; the other rows still count
        if isinstance(row, dict) and isinstance(row.get("insightId"), str):
            rows.setdefault(row["insightId"], []).append(row)
    return rows
