"""The Insight value and the rules every insight obeys, wherever it came from.

Flags, stdin JSON, hand-edited files and imports all pass through the same
validators here, so a value that is refused in one place is refused everywhere.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from datetime import UTC, date, datetime
from typing import Any

from chitin.errors import ValidationError
from chitin.model.fields import (
    JSON_FIELDS,
    LAST_RETRIEVED_AFTER,
    LAST_RETRIEVED_KEY,
    LIST,
    SECTION_FIELDS,
)
from chitin.model.fields import PROVENANCES as PROVENANCES
from chitin.model.fields import TYPES as TYPES
from chitin.model.ids import check_id
from chitin.model.invisible import refuse_invisible
from chitin.model.numbers import js_number as js_number
from chitin.model.record import Insight as Insight

EVIDENCE_KINDS: tuple[str, ...] = ("external", "internal", "social")

# The original's reinforcement step: move 5% of the remaining distance towards 1.
CONFIDENCE_ADJUSTMENT_RATE = 0.05
# Confidence is rounded so that repeated reinforcement never shows float noise
# such as 0.9097500000000001 (original §11.24).
CONFIDENCE_DIGITS = 6

# The body's sections, in the order they are written (model/fields.py).
TEXT_FIELDS: tuple[str, ...] = tuple(field.name for field in SECTION_FIELDS)

# Bounds on every number that enters the store, on every path in (flags, JSON, 1.x
# databases, hand-edited files, the merge driver): the cache keeps them in SQLite,
# whose INTEGER is 64 bits, and timestamps must format back to four-digit years.
MAX_REINFORCEMENTS = 1_000_000_000
EARLIEST_YEAR = 1970
LATEST_YEAR = 9999


# ---------------------------------------------------------------- validators


def _allowed(values: tuple[str, ...]) -> str:
    return ", ".join(values)


def _check_choice(field: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValidationError(
            field, f"invalid {field} {_shown(value)} (allowed: {_allowed(allowed)})"
        )
    return value


def check_type(value: object) -> str:
    return _check_choice("type", value, TYPES)


def check_provenance(value: object) -> str | None:
    """A provenance, or None for none (an empty text clears it)."""
    return None if value is None or value == "" else _check_choice("provenance", value, PROVENANCES)


def check_evidence(value: object) -> str | None:
    return (
        None if value is None or value == "" else _check_choice("evidence", value, EVIDENCE_KINDS)
    )


# Carapace ids are UUIDs in production and ``test-N`` on a test server; a self-hosted
# one may use other slugs. The id goes into a URL path and a file, so it is kept to
# characters that need no escaping anywhere, and may not be a dot segment.
_CARAPACE_ID: re.Pattern[str] | None = None
MAX_CARAPACE_ID = 200


def check_carapace_id(value: object) -> str | None:
    """A Carapace contribution id, or None for none (an empty text clears it)."""
    global _CARAPACE_ID
    if value is None or value == "":
        return None
    if _CARAPACE_ID is None:
        _CARAPACE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:~-]*")
    if (
        not isinstance(value, str)
        or len(value) > MAX_CARAPACE_ID
        or not _CARAPACE_ID.fullmatch(value)
    ):
        raise ValidationError(
            "carapace_id",
            f"invalid Carapace id {_shown(value)} (allowed: 1 to {MAX_CARAPACE_ID} letters, "
            "digits and . _ : ~ -, starting with a letter or digit)",
        )
    return value


# A confidence given as text: a plain decimal, ASCII digits with at most one '.', and a
# sign (a negative one is then out of range), surrounded by white space at most.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")


def check_confidence(value: object) -> float:
    """Accept a number or a plain decimal text in [0, 1]; refuse NaN, infinities, words,
    and what else float() reads (digit groups, exponents, other scripts' digits)."""
    if isinstance(value, bool):
        number = math.nan
    elif isinstance(value, int):
        number = float(value) if -2 <= value <= 2 else math.inf  # float(10**400) overflows
    elif isinstance(value, float):
        number = value
    elif isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        number = float(value.strip())
    else:  # float() would take "0.5_0", other scripts' digits ("٠.٥"), "5e-1", "inf"
        number = math.nan
    if math.isnan(number):
        raise ValidationError(
            "confidence", f"confidence must be a number from 0 to 1, got {_shown(value)}"
        )
    if not 0.0 <= number <= 1.0:
        raise ValidationError(
            "confidence", f"confidence must be between 0 and 1, got {_shown(value)}"
        )
    return round(number, CONFIDENCE_DIGITS)


def check_claim(value: object) -> str:
    """A claim: text with at least one visible character (not only white space,
    zero-width or control characters), and no control characters but newlines."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError("claim", "claim must be a non-empty text")
    claim = check_text("claim", value.strip())
    if not (claim.isascii() or _has_visible(claim)):  # stripped ASCII text is visible
        raise ValidationError(
            "claim", "claim must have visible characters, not only invisible or format ones"
        )
    return claim


def normalize_claim(value: object) -> str:
    """A claim typed on the command line becomes one line: runs of white space fold."""
    return " ".join(check_claim(value).split())


def optional_text(name: str, value: object) -> str | None:
    """Optional text fields: empty means absent (an empty string clears a field)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(name, f"{name} must be a text, got {_shown(value)}")
    stripped = check_text(name, value).strip()
    return stripped or None


# What no text field may hold: control characters other than tab and newline, and
# lone surrogates (bytes that were not UTF-8, as Python decodes a command line).
# Compiled at the first non-ASCII text (~3 ms); ASCII is checked by the class's ASCII part.
_FORBIDDEN: re.Pattern[str] | None = None
_FORBIDDEN_CLASS = "[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\U0010ffff]"
_FORBIDDEN_ASCII = "[\x00-\x08\x0b-\x1f\x7f]"


def check_text(field: str, value: str) -> str:
    """``value`` if it is valid UTF-8 text without control characters (tab and newline
    aside; a Windows line end becomes a newline), else a ValidationError naming ``field``."""
    global _FORBIDDEN
    if not isinstance(value, str):  # a library caller's number or list
        raise ValidationError(field, f"{field} must be a text, got {_shown(value)}")
    if value.isascii():
        found = re.search(_FORBIDDEN_ASCII, value)
    else:
        _FORBIDDEN = _FORBIDDEN or re.compile(_FORBIDDEN_CLASS)
        found = _FORBIDDEN.search(value)
    if found is None:
        if not value.isascii():
            refuse_invisible(field, value)
        return value
    if "\r\n" in value:
        return check_text(field, value.replace("\r\n", "\n"))
    char = found.group()
    if "\ud800" <= char <= "\udfff":
        raise ValidationError(field, f"{field} must be valid UTF-8 text")
    raise ValidationError(
        field,
        f"{field} must not contain control characters (found U+{ord(char):04X}; "
        "only tab and newline are allowed)",
    )


# Letters and symbols that show nothing: the Hangul fillers and the blank Braille cell.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _has_visible(text: str) -> bool:
    """Whether ``text`` holds a letter, digit, punctuation mark or symbol that shows:
    white space, zero-width and format characters, and lone combining marks do not. A
    private-use or unassigned character counts as visible (a font or a newer Unicode
    than Python's may draw it)."""
    return any(
        (category[0] in "LNPS" or category in ("Co", "Cn")) and char not in _BLANK_LETTERS
        for char, category in ((c, unicodedata.category(c)) for c in text)
    )


def tag_key(tag: str) -> str:
    """What two tags are compared by, everywhere: "Über" and "über", "ΣΟΦΊΑ" and "σοφία",
    "Straße" and "STRASSE" are one tag (NFKC, then casefold, then NFKC again: Unicode's
    NFKC_Casefold). Files keep the tag as it was written."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", tag).casefold())


def parse_tags(value: object) -> tuple[str, ...]:
    """Tags from a comma list or a list: trimmed, empty pieces dropped, first spelling kept.
    A text in a list is split at its commas too, as ``--tags`` splits: a tag that held a
    comma could never be asked for (``list --tags`` splits the same way)."""
    if value is None:
        return ()
    if isinstance(value, str):
        pieces: list[object] = list(value.split(","))
    elif isinstance(value, list | tuple):
        pieces = [p for v in value for p in (v.split(",") if isinstance(v, str) else [v])]
    else:
        raise ValidationError("tags", "tags must be a comma-separated text or a list of texts")
    tags: list[str] = []
    seen: set[str] = set()
    for piece in pieces:
        if not isinstance(piece, str | int | float) or isinstance(piece, bool):
            raise ValidationError("tags", f"tag must be text, got {_shown(piece)}")
        if isinstance(piece, str):
            check_text("tags", piece)
        elif not (isinstance(piece, float) or -(10**18) < piece < 10**18):
            raise ValidationError("tags", "a tag must be text, not a number that long")
        tag = " ".join(str(piece).split())
        if tag and tag_key(tag) not in seen:
            seen.add(tag_key(tag))
            tags.append(tag)
    return tuple(tags)


def check_reinforcements(value: object) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not 0 <= value <= MAX_REINFORCEMENTS
    ):
        raise ValidationError(
            "reinforcements",
            f"reinforcements must be a whole number from 0 to {MAX_REINFORCEMENTS}, "
            f"got {_shown(value)}",
        )
    return value


def _shown(value: object) -> str:
    """A refused value as JSON writes it (``true``, ``{"a": 1}``: values mostly come from
    JSON), a text quoted as typed; short, one line (Python refuses to print an int of
    more than 4,300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return "a number of more than 30 digits"
    if isinstance(value, datetime):  # as YAML read it
        return value.isoformat()
    if isinstance(value, float):  # 2, not 2.0; NaN, not nan: as JSON (and JavaScript) write it
        return js_number(value)
    try:
        text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    except ValueError:  # an int of more than 4,300 digits inside a list
        text = "a value too large to show"
    return text if len(text) <= 80 else text[:77] + "…"


def check_trigger_fields(kind: str, condition: str | None, avoid: bool) -> None:
    """A trigger needs its situation; other types have neither condition nor avoid."""
    if kind == "trigger" and not condition:
        raise ValidationError("condition", 'a trigger needs a condition (--condition "when …")')
    if kind != "trigger" and (condition or avoid):
        raise ValidationError(
            "condition", f"condition and avoid apply only to triggers, not to a {kind} insight"
        )


def validate(insight: Insight) -> Insight:
    """Check every field of a complete insight; return it unchanged when valid."""
    check_id(insight.id)
    check_type(insight.type)
    check_claim(insight.claim)
    check_confidence(insight.confidence)
    check_provenance(insight.provenance)
    check_reinforcements(insight.reinforcements)
    check_trigger_fields(insight.type, insight.condition, insight.avoid)
    check_carapace_id(insight.carapace_id)
    for name in ("created", "updated", "last_reinforced"):
        stamp = getattr(insight, name)
        if stamp is not None:
            parse_timestamp(name, stamp)
    return insight


# ---------------------------------------------------------------- time

_ISO_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def format_timestamp(moment: datetime) -> str:
    """Canonical form: UTC, whole seconds, e.g. 2026-11-29T12:00:00Z."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime(_ISO_FORMAT)


_LEGACY_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$")


def parse_timestamp(name: str, value: object) -> datetime:
    """Read ISO 8601 (any offset) or chitin 1.x's 'YYYY-MM-DD HH:MM:SS' as UTC, in the
    years EARLIEST_YEAR to LATEST_YEAR."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):  # YAML reads a bare 2026-01-15 so; a text reads as midnight
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip()
        if _LEGACY_STAMP.match(text):
            text = text.replace(" ", "T")
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError(
                name,
                f"{name} must be an ISO 8601 time such as 2026-11-29T12:00:00Z, "
                f"got {_shown(value)}",
            ) from None
    else:
        raise ValidationError(name, f"{name} must be a time, got {_shown(value)}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone(UTC)
        in_range = EARLIEST_YEAR <= moment.year <= LATEST_YEAR
    except OverflowError:  # 9999-12-31T23:00:00-05:00 is in the year 10000
        in_range = False
    if not in_range:
        raise ValidationError(
            name,
            f"{name} must be a time in the years {EARLIEST_YEAR} to {LATEST_YEAR}, "
            f"got {_shown(value)}",
        )
    return moment


_CANONICAL_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def canonical_timestamp(name: str, value: object) -> str:
    if isinstance(value, str) and _CANONICAL_STAMP.fullmatch(value):
        parse_timestamp(name, value)  # still refuse impossible dates such as month 13
        return value
    return format_timestamp(parse_timestamp(name, value))


# ---------------------------------------------------------------- numbers


def reinforced_confidence(confidence: float) -> float:
    """The original's rule: c + (1 − c) × 0.05, capped at 1, without float noise."""
    return round(
        min(1.0, confidence + (1.0 - confidence) * CONFIDENCE_ADJUSTMENT_RATE), CONFIDENCE_DIGITS
    )


# ---------------------------------------------------------------- public shape


def to_public_dict(insight: Insight, last_retrieved: str | None = None) -> dict[str, Any]:
    """The original's JSON shape (camelCase, absent fields omitted) plus our extra keys,
    in the order of model/fields.py's ``json_at``. ``last_retrieved``: when a retrieval
    last gave the insight (kept in ``.chitin/``, not in its file), as the original's
    ``lastRetrievedAt``, in its place after the reinforcement count."""
    data: dict[str, Any] = {}
    for name, key, is_list in _PUBLIC_KEYS:
        value = getattr(insight, name)
        if value is not None:
            data[key] = list(value) if is_list else value
        if name == LAST_RETRIEVED_AFTER.name and last_retrieved is not None:
            data[LAST_RETRIEVED_KEY] = last_retrieved
    return data


_PUBLIC_KEYS: tuple[tuple[str, str, bool], ...] = tuple(
    (field.name, field.json, field.form == LIST) for field in JSON_FIELDS
)
