"""The evidence log: one line per reinforcement, kept in the insight's file.

    evidence:
    - 2026-11-29T12:00:00Z mel@laptop k3f9 external
    - 2026-11-30T08:15:02Z ci@runner-7 p2x8

Each line says when, by whom (agent or user, at which host), and carries a random
token. The token is what makes every reinforcement distinct: two machines that
reinforce the same insight in the same second, as the same author, would otherwise
write byte-identical files, hence identical commits that git merges into one, and
``git rebase`` drops a patch identical to one already upstream. With the log, both
reinforcements survive a sync, and the merge driver can unite the two logs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chitin.model.ids import random_text
from chitin.model.insight import EVIDENCE_KINDS

# The newest entries kept: enough to tell recent reinforcements apart and to see who
# confirmed an insight lately, without letting a much-confirmed file grow forever.
# The ``reinforcements`` count, not the log, is the total.
MAX_ENTRIES = 20
TOKEN_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
TOKEN_LENGTH = 4

ENTRY = re.compile(
    r"(?P<at>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) (?P<by>[A-Za-z0-9._@+-]+) "
    rf"(?P<token>[{TOKEN_ALPHABET}]{{{TOKEN_LENGTH}}})(?: (?P<kind>{'|'.join(EVIDENCE_KINDS)}))?"
)
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]+")


def new_token() -> str:
    return random_text(TOKEN_ALPHABET, TOKEN_LENGTH)


def signature(who: str, host: str) -> str:
    """``who@host``, reduced to characters that keep an entry one plain YAML word."""
    who = _UNSAFE.sub("-", who).strip("-") or "chitin"
    host = _UNSAFE.sub("-", host.split(".")[0]).strip("-")
    return f"{who}@{host}" if host else who


def entry(at: str, by: str, token: str, kind: str | None = None) -> str:
    text = f"{at} {by} {token}"
    return f"{text} {kind}" if kind else text


def is_entry(text: str) -> bool:
    return ENTRY.fullmatch(text) is not None


def appended(log: Iterable[str], new: str) -> tuple[str, ...]:
    return united(log, [new])


def united(*logs: Iterable[str]) -> tuple[str, ...]:
    """Every entry of every log once, oldest first, the newest ``MAX_ENTRIES`` kept.

    Entries sort by their text, which starts with the time, so the result does not
    depend on the order of the logs: two machines uniting the same logs agree.
    """
    entries = sorted({text for log in logs for text in log})
    return tuple(entries[-MAX_ENTRIES:])
