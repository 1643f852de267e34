"""A request's raw arguments turned into typed values: the one parser both front ends
call, the CLI with its flags' texts (``--type skill,trigger``, ``--min-confidence
0.7``) and the MCP server with its tools' JSON values (``["skill"]``, ``0.7``), and
the library with either. Each refusal is worded here once, one line naming the
allowed values, so that a person and an agent read the same message.

The JSON types of a tool's arguments are checked before (server/arguments.py, against
the tool's schema); click's own types bound the CLI's numbers as usage errors.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from types import FunctionType
from typing import TypeVar

from chitin.errors import ValidationError
from chitin.model import sync_choice
from chitin.model.insight import (
    check_confidence,
    check_provenance,
    check_type,
    js_number,
    parse_tags,
)

Raw = str | Iterable[str] | None  # a comma list, or its values
T = TypeVar("T")


def values(raw: Raw) -> tuple[str, ...]:
    """The values of a comma list (``"skill,trigger"``) or of a list, blanks dropped."""
    if not raw:
        return ()
    pieces = raw.split(",") if isinstance(raw, str) else raw
    return tuple(piece for piece in pieces if not isinstance(piece, str) or piece.strip())


def kinds(raw: Raw) -> tuple[str, ...]:
    """Insight types, each one of TYPES, each once (in the order first named): a
    type named again filters nothing more, and retrieve fills its result per type."""
    return tuple(
        dict.fromkeys(
            check_type(kind.strip() if isinstance(kind, str) else kind) for kind in values(raw)
        )
    )


def tags(raw: object) -> tuple[str, ...]:
    """Tags from a comma list or a list of texts (model/insight.py's ``parse_tags``)."""
    return parse_tags(raw)


def floor(raw: object) -> float | None:
    """A lowest confidence, from 0 to 1, or None for none."""
    return None if raw is None else check_confidence(raw)


def provenance(raw: object) -> str | None:
    """One of PROVENANCES, or None (no value, or an empty one: any)."""
    return check_provenance(raw or None)


def threshold(raw: object, semantic: bool) -> float:
    """``similar``'s lowest similarity: 0.2 of shared words, 0.5 of meaning, by default."""
    if raw is None:
        return 0.5 if semantic else 0.2
    try:
        return check_confidence(raw)
    except ValidationError:
        raise ValidationError(
            "threshold", f"threshold must be a number from 0 to 1, got {_shown(raw)}"
        ) from None


def bounded(name: str, value: int | None, high: int) -> int | None:
    """A count or budget from 1 to ``high`` (an MCP tool's argument, a library caller's
    value), refused in the words of a wrong type's refusal, naming the argument and its
    range: click's ("Invalid value for 'budget': 0 is not in the range 1<=x<=…") are
    the command line's, for its flags."""
    if value is not None and not 1 <= value <= high:
        raise ValidationError(
            name, f"{name} must be a whole number from 1 to {high}, got {_shown(value)}"
        )
    return value


def count(name: str, value: object, high: int) -> int:
    """A whole number from 1 to ``high`` (a library caller's ``max_results`` or
    ``budget``), refused in the words the MCP server uses for it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(name, f"{name} must be a whole number, got {_shown(value)}")
    bounded(name, value, high)
    return value


def at_least(name: str, value: object, low: int) -> int:
    """A whole number of ``low`` or more (the characters of a reflection's digest)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        shown = _shown(value)
        raise ValidationError(name, f"{name} must be a whole number of {low} or more, got {shown}")
    return value


def lowest(name: str, raw: object) -> float | None:
    """``floor`` for a field whose name is not "confidence" (``min_confidence``)."""
    try:
        return floor(raw)
    except ValidationError:
        shown = _shown(raw)
        raise ValidationError(name, f"{name} must be a number from 0 to 1, got {shown}") from None


def text(name: str, raw: object) -> str:
    """A text, as a library caller must give a query."""
    if not isinstance(raw, str):
        raise ValidationError(name, f"{name} must be a text, got {_shown(raw)}")
    return raw


def texts(name: str, raw: object) -> tuple[str, ...]:
    """A list of texts (ids), as a library caller must give them: one text alone would
    be read letter by letter, and a number is no list at all."""
    items = tuple(raw) if isinstance(raw, Iterable) and not isinstance(raw, str) else None
    if items is None or not all(isinstance(item, str) for item in items):
        raise ValidationError(name, f"{name} must be a list of texts, got {_shown(raw)}")
    return items


def tag_filter(raw: object) -> tuple[str, ...]:
    """A Query's tags: a comma text (as ``--tags`` gives them) or a list of texts; a
    number among them matched nothing, quietly."""
    if isinstance(raw, str):
        return parse_tags(raw)
    return texts("tags", raw) and parse_tags(raw)


def path(name: str, raw: object) -> Path | None:
    """An optional file a library caller names (a Path or its text), or None."""
    if raw is None:
        return None
    if not isinstance(raw, str | PathLike):
        raise ValidationError(name, f"{name} must be a path, got {_shown(raw)}")
    return Path(raw)


def store(raw: object) -> Path | None:
    """``Chitin(store=...)``: the store's folder, or None for the default rule. An empty
    text is refused: ``Path("")`` is the current folder, where a write would make a
    store (``--store ""`` is refused for the same reason)."""
    if raw is None:
        return None
    if not isinstance(raw, str | PathLike) or not str(raw).strip():
        raise ValidationError("store", f"store must name the store's folder, got {_shown(raw)}")
    return Path(raw)


def nameable_store(root: Path) -> Path:
    """Refuse a store path holding bytes that are not UTF-8 (a folder named so by
    another tool): SQLite and git's stdin take text, and every write failed as an
    internal error (exit 3) after init had made the store."""
    try:
        str(root).encode("utf-8")
    except UnicodeEncodeError as error:
        shown = str(root).encode("utf-8", "backslashreplace").decode()
        raise ValidationError(
            "store",
            f"the store path {shown} is not valid UTF-8 (at character {error.start + 1}); "
            "name a folder whose path is, with --store or $CHITIN_STORE",
        ) from None
    return root


def environment(raw: object) -> Mapping[str, str]:
    """``Chitin(env=...)``: names to texts (default ``os.environ``), checked when the
    instance is made rather than at its first use of a key."""
    if raw is None:
        return os.environ
    if not isinstance(raw, Mapping):
        raise ValidationError("env", f"env must be a mapping such as os.environ, got {_shown(raw)}")
    for name, value in raw.items():
        if not isinstance(name, str) or not isinstance(value, str):
            shown = f"{_shown(name)}: {_shown(value)}"
            raise ValidationError("env", f"env must be a mapping of names to texts, got {shown}")
    return raw


def flag(name: str, raw: object) -> bool:
    """True or False, as a library caller must give a switch: a text ("no") or a number
    would be read as true."""
    if not isinstance(raw, bool):
        raise ValidationError(name, f"{name} must be True or False, got {_shown(raw)}")
    return raw


def switches_checked(cls: type[T]) -> type[T]:
    """``cls`` with every public method's ``bool`` parameters checked by ``flag`` before
    the method runs: a library caller's text ("no") or number read as true, so
    ``dedupe(apply="no")`` merged and ``contribute(..., allow_secret="no")`` committed a
    credential."""
    for name, method in list(vars(cls).items()):
        if name.startswith("_") or not isinstance(method, FunctionType):
            continue  # a property, a private helper
        code = method.__code__
        parameters = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        named = {
            switch: at
            for at, switch in enumerate(parameters)
            if method.__annotations__.get(switch) in ("bool", bool)
        }
        if named:
            setattr(cls, name, _switches_checked(method, named))
    return cls


def _switches_checked(method: Callable[..., T], named: dict[str, int]) -> Callable[..., T]:
    @functools.wraps(method)
    def checked(*args: object, **kwargs: object) -> T:
        for switch, at in named.items():
            if switch in kwargs:
                flag(switch, kwargs[switch])
            elif at < len(args):
                flag(switch, args[at])
        return method(*args, **kwargs)

    return checked


def instances(name: str, raw: object, kind: type[T], what: str) -> list[T]:
    """A list of ``kind`` (``what`` names it for the caller), as a library caller must
    give it: one item alone, a text or a number is no list of them."""
    items = list(raw) if isinstance(raw, list | tuple) else None
    if items is None or not all(isinstance(item, kind) for item in items):
        raise ValidationError(name, f"{name} must be a list of {what}, got {_shown(raw):.80}")
    return items


def sync_ways(
    remote: object, resume: bool, ours: object, theirs: object, abort: bool
) -> tuple[bool, tuple[str, ...], tuple[str, ...], bool]:
    """``Chitin.sync``'s ways to finish a stopped sync, refused as ``chitin sync``
    refuses its flags (model/sync_choice.py), in the library's names: ``abort`` beside
    another won silently."""
    ours, theirs = texts("ours", ours), texts("theirs", theirs)
    if refused := sync_choice.refused(remote, resume, ours, theirs, abort, sync_choice.LIBRARY):
        raise ValidationError(*refused)
    return resume, ours, theirs, abort


# retrieval/scoring.py's Shape, by its fields (model imports no layer above it);
# tests/test_library_arguments.py holds the two together.
SHAPE_FIELDS = ("confidence", "reinforcement", "type_boost", "relevance_halving")
FUSIONS = ("blend", "rrf")  # search/engine.py's ways to fuse text and meaning


def shape(raw: T) -> T:
    """``Chitin(shape=...)``, for evaluating the scoring: None (the default) or a Shape;
    a number raised AttributeError at the first retrieval."""
    if raw is not None and getattr(type(raw), "_fields", None) != SHAPE_FIELDS:
        shown = _shown(raw)
        raise ValidationError(
            "shape", f"shape must be a Shape (chitin.retrieval.scoring) or None, got {shown:.60}"
        )
    return raw


def fusion(raw: object) -> str:
    """``Chitin(fusion=...)``: one of FUSIONS; another word blended, as "blend" does."""
    if raw not in FUSIONS:
        shown = _shown(raw)
        raise ValidationError(
            "fusion", f"fusion must be one of {', '.join(FUSIONS)}, got {shown:.60}"
        )
    return str(raw)


def _shown(raw: object) -> str:
    """A refused value as the caller gave it: a text quoted, a number as JSON says it."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return js_number(raw)
    return repr(raw)


def agent(raw: object, env: Mapping[str, str]) -> str | None:
    """``Chitin(agent=...)``, else $CHITIN_AGENT, else None: a text, whose value is
    checked when a write needs it (session.py: a bad name must not stop a read). A
    blank one (spaces only) is none: it would sign every commit with an empty trailer.
    The one place the name is read (the CLI's settings ask it too)."""
    if raw is None:
        raw = env.get("CHITIN_AGENT")
    elif not isinstance(raw, str):
        raise ValidationError("agent", f"agent must be a text such as my-agent, got {_shown(raw)}")
    return raw if raw and not raw.isspace() else None


def callback(name: str, raw: T | None) -> T | None:
    """A function a library caller may give (``signer``, ``progress``), or None."""
    if raw is not None and not callable(raw):
        raise ValidationError(name, f"{name} must be a function or None, got {_shown(raw):.60}")
    return raw


def clock(now: datetime | Callable[[], datetime] | None) -> Callable[[], datetime]:
    """``Chitin(now=...)``: a fixed time, a clock, or None for the system's. A naive
    time, fixed or told by the clock (``datetime.now``), is UTC: the files' times are
    aware, and a retrieval's decay subtracts one from the other."""
    if isinstance(now, datetime):
        fixed = _aware(now)
        return lambda: fixed
    if now is None:
        return system_clock
    if callable(now):  # a text would fail at the first write, as a TypeError
        told = now
        return lambda: _aware(told())
    raise ValidationError("now", f"now must be a datetime or a clock, got {now!r:.60}")


def system_clock() -> datetime:
    """The time when ``now`` was not given (git dates its commits by its own then)."""
    return datetime.now(UTC)


def _aware(moment: object) -> datetime:
    """A time from ``now``, in UTC if naive; what is no datetime is refused, naming now."""
    if not isinstance(moment, datetime):
        shown = _shown(moment)
        raise ValidationError("now", f"now's clock must give a datetime, got {shown:.60}")
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
