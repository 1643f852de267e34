"""A session's digest: its moments, the injected insights it touched, and the ready
commands, within a bounded size (issue 26).

Everything quoted is the transcript's text, masked where it looks like a credential
(the write guard's detector) and cut, never rewritten. Pure: turns in, a digest out.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from chitin.model.moments import CORRECTION, PREFERENCE, RECOVERY, Moment, find_moments
from chitin.model.ops import PLACEHOLDER
from chitin.model.quoting import quote
from chitin.model.reinforced import reinforced
from chitin.model.transcript import AGENT, CALL, USER, Turn

DEFAULT_CHARACTERS = 4_000  # per session
MIN_CHARACTERS = 500
TIME = 64  # of a moment's time, as the transcript wrote it (an ISO 8601 time is 24)
SHORT = 120  # of the one moment a digest too small for any shows, shortened
# The most the lines of insights named by id alone (not touched, reinforced, gone) are
# costed at: a text too small for them shows the first ids and "+N more" (render).
IDS_COST = 120
# What a moment asks to be kept as: the insight type, and how it was learned.
SKELETON = {
    CORRECTION: ("behavioral", "correction"),
    PREFERENCE: ("relational", "directive"),
    RECOVERY: ("skill", "observation"),
}
# Words that say nothing about a topic, left out when matching an insight's claim.
_COMMON = frozenset(
    [
        "about",
        "after",
        "again",
        "always",
        "before",
        "being",
        "could",
        "does",
        "doing",
        "done",
        "each",
        "every",
        "from",
        "have",
        "into",
        "just",
        "keep",
        "like",
        "make",
        "more",
        "most",
        "never",
        "only",
        "other",
        "over",
        "same",
        "should",
        "some",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "very",
        "want",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "with",
        "without",
        "would",
        "your",
        "you're",
        "it's",
        "before",
        "instead",
        "rather",
    ]
)
_WORD = re.compile(r"[a-z][a-z0-9_-]{3,}")


class Touch(NamedTuple):
    """An insight given at the session's start, and where the session touched its topic."""

    id: str
    claim: str | None  # None: no longer in the store
    numbers: tuple[int, ...]  # messages that bear on it (the first few)
    quote: str  # the first of them, cut
    reinforced: tuple[int, ...] = ()  # messages whose tool calls reinforced it


class Digest(NamedTuple):
    messages: int  # messages read
    moments: list[Moment]  # those shown, in transcript order
    omitted: int  # moments left out to keep the size
    touches: list[Touch]
    commands: list[str]
    # How the commands run chitin: `chitin`, or the agent's own way to reach this store
    # (chitin's path, `--store`), so that what the digest calls ready is.
    chitin: str = "chitin"
    since: int = 0  # the messages reflected on before, not digested again


def make_digest(
    turns: Sequence[Turn],
    injected: Mapping[str, str | None],
    label: str,
    characters: int = DEFAULT_CHARACTERS,
    chitin: str = "chitin",
    since: int = 0,
) -> Digest:
    """The digest of one session's ``turns``; ``injected`` maps the ids given at its
    start to their claims; ``label`` names the session in the commands' sources;
    ``chitin`` starts each command; ``since``: the messages reflected on before, whose
    moments and touches are not shown again. Moments are found in the whole session
    (what the agent did next may follow), and a reinforcement made in any part of it
    counts (offering another would count twice)."""
    moments = [_masked(m) for m in find_moments(turns) if m.number > since]
    done = reinforced(turns, injected)
    new = [t for t in turns if t.number > since]
    touches = [_touch(new, i, claim)._replace(reinforced=done[i]) for i, claim in injected.items()]
    shown = _fit(moments, touches, characters)
    commands = ready_commands(shown, touches, label, chitin)
    messages = max((t.number for t in turns), default=0)
    return Digest(messages, shown, len(moments) - len(shown), touches, commands, chitin, since)


def _masked(moment: Moment) -> Moment:
    """Every text of the transcript's a moment carries, its time too, quoted."""
    time = quote(moment.time, TIME) if moment.time else moment.time
    return moment._replace(quote=quote(moment.quote), then=quote(moment.then, 160), time=time)


def keywords(claim: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(claim.lower()) if w not in _COMMON}


def _stem(word: str) -> str:
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


def _touch(turns: Sequence[Turn], insight_id: str, claim: str | None) -> Touch:
    """Where the session's words share enough of the claim's words to be on its topic:
    two of them (the one of a claim that has one), and at least a third of them."""
    wanted = keywords(claim or "")
    numbers: list[int] = []
    first = ""
    for turn in turns:
        if not wanted or turn.role not in (USER, AGENT, CALL) or turn.number in numbers:
            continue
        said = {_stem(w) for w in _WORD.findall(turn.text.lower())}
        shared = len(wanted & said)
        if shared >= min(2, len(wanted)) and shared * 3 >= len(wanted):
            numbers.append(turn.number)
            first = first or quote(turn.text, 160)
    return Touch(insight_id, claim, tuple(numbers[:5]), first)


def _fit(moments: list[Moment], touches: list[Touch], characters: int) -> list[Moment]:
    """The moments that fit in ``characters`` beside the insights and the commands (each
    moment also costs its command), taken by weight (the strongest evidence first) and
    shown in transcript order."""
    touched = sum(len(t.claim or "") // 2 + len(t.quote) + 140 for t in touches if t.numbers)
    by_id = sum(len(t.id) + 2 for t in touches if not t.numbers)
    spent = 300 + touched + min(by_id, IDS_COST)
    shown: list[Moment] = []
    for moment in sorted(moments, key=lambda m: -m.weight):  # stable: ties keep order
        cost = len(moment.quote) + len(moment.then) + 220
        if spent + cost <= characters:
            spent += cost
            shown.append(moment)
    if moments and not shown:  # a small size: the weightiest, shortened, rather than none
        top = max(moments, key=lambda m: m.weight)  # the first of the weightiest
        shown = [top._replace(quote=quote(top.quote, SHORT), then=quote(top.then, SHORT // 2))]
    return sorted(shown, key=lambda m: m.number)


def ready_commands(
    moments: list[Moment], touches: list[Touch], label: str, chitin: str = "chitin"
) -> list[str]:
    """Commands the agent can run as they are (reinforce) or fill in (contribute: the
    claim is the agent's to write; the digest never writes it)."""
    # One the session reinforced already is not offered again: it would count twice.
    commands = [
        f"{chitin} reinforce {t.id} --source {_arg(f'{label}, message {t.numbers[0]}')}"
        for t in touches
        if t.numbers and t.claim is not None and not t.reinforced
    ]
    for moment in moments:
        kind, provenance = SKELETON[moment.kind]
        source = _arg(f"{label}, message {moment.number}")
        commands.append(
            f'{chitin} contribute --type {kind} --provenance {provenance} --claim "{PLACEHOLDER}" '
            f"--confidence 0.7 --source {source}"
        )
    return commands


def _arg(text: str) -> str:
    return shlex.quote(quote(text, 200))
