"""How a sync stopped by a conflict is finished, checked before the store is read: the
combinations of its ways that make no sense, worded in the caller's own names (the
CLI's flags, the library's parameters), one check for both."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from chitin.errors import ChitinError, StateError, ValidationError


@dataclass(frozen=True)
class Words:
    """What a front end calls each way, and what it says sync takes."""

    resume: str
    ours: str
    theirs: str
    abort: str
    remote: str
    takes: str


CLI = Words(
    "--continue", "--ours", "--theirs", "--abort", "--remote",
    "sync takes --continue, or --ours/--theirs ID (repeatable), or --abort alone",
)  # fmt: skip
LIBRARY = Words(
    "resume", "ours", "theirs", "abort", "remote",
    "sync takes resume=True, or ours/theirs (lists of ids), or abort=True alone",
)  # fmt: skip


class BothSides(ValidationError):
    """``ours`` and ``theirs`` name the same insight (an id and a prefix of it, seen
    once they resolve): the contradiction of one id given to both, found later."""

    def __init__(self, ids: Iterable[str]) -> None:
        self.ids = sorted(ids)
        super().__init__("theirs", both_sides(self.ids, LIBRARY))


def both_sides(ids: Iterable[str], words: Words) -> str:
    return f"{words.ours} and {words.theirs} both name {', '.join(ids)}; choose one"


class NoId(ValidationError):
    """An empty (or blank) id given to ``ours`` or ``theirs``: a wrong use of the flag,
    the CLI's usage error (exit 2), seen once the conflicted insights are known."""

    def __init__(self, side: str, conflicted: str) -> None:
        self.side, self.conflicted = side, conflicted
        super().__init__(side, no_id(side, conflicted, LIBRARY))


def no_id(side: str, conflicted: str, words: Words) -> str:
    flag = words.ours if side == "ours" else words.theirs
    return f"{flag} takes an id, got an empty one; {_conflicted(conflicted)}"


def unmatched(name: str, side: str, conflicted: str) -> ChitinError:
    """What an id that names no conflicted insight raises: NoId for an empty one."""
    if not name.strip():
        return NoId(side, conflicted)
    return StateError(f"{name!r} is not in conflict; {_conflicted(conflicted)}")


def _conflicted(named: str) -> str:
    return f"the conflicted insights are {named} (give an id or a path)"


def refused(
    remote: object,
    resume: bool,
    ours: Iterable[str],
    theirs: Iterable[str],
    abort: bool,
    words: Words,
) -> tuple[str, str] | None:
    """(the way refused, why) when these ways make no sense together, else None:
    ``abort`` forgets a stopped sync and touches no remote; ``ours``/``theirs`` take the
    edited files as ``resume`` does, so ``resume`` beside them says nothing (or
    contradicts them); one id cannot take both sides."""
    ours, theirs = tuple(ours), tuple(theirs)
    given: Mapping[str, object] = {
        words.resume: resume, words.ours: ours, words.theirs: theirs, words.remote: remote
    }  # fmt: skip
    if abort and (others := [name for name, on in given.items() if on]):
        return (
            "abort",
            f"{words.abort} cannot be combined with {' or '.join(others)}; {words.takes}",
        )
    if resume and (ours or theirs):
        named = " or ".join(w for w, on in ((words.ours, ours), (words.theirs, theirs)) if on)
        return "resume", (
            f"{words.resume} cannot be combined with {named} (they take edited files too); "
            f"{words.takes}"
        )
    if both := sorted(set(ours) & set(theirs)):
        return "theirs", both_sides(both, words)
    return None
