"""The Insight value and the rules every insight obeys, wherever it came from.

Flags, stdin JSON, hand-edited files and imports all pass through the same
validators here, so a value that is refused in one place is refused everywhere.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any, NamedTuple

from chitin.errors import ValidationError

TYPES: tuple[str, ...] = (
    "behavioral",
    "personality",
    "relational",
    "principle",
    "skill",
    "trigger",
)
PROVENANCES: tuple[str, ...] = (
    "directive",
    "observation",
    "social",
    "correction",
    "reflection",
    "external",
)
EVIDENCE_KINDS: tuple[str, ...] = ("external", "internal", "social")

# The original's reinforcement step: move 5% of the remaining distance towards 1.
CONFIDENCE_ADJUSTMENT_RATE = 0.05
# Confidence is rounded so that repeated reinforcement never shows float noise
# such as 0.9097500000000001 (original §11.24).
CONFIDENCE_DIGITS = 6

TEXT_FIELDS: tuple[str, ...] = ("reasoning", "context", "limitations")


class Insight(NamedTuple):
    """One learned insight. Timestamps are canonical ISO 8601 UTC strings.

    A NamedTuple rather than a frozen dataclass: ``list`` builds 100,000 of these
    from cache rows, and tuple construction is several times cheaper.
    """

    id: str
    type: str
    claim: str
    confidence: float
    created: str
    updated: str
    tags: tuple[str, ...] = ()
    provenance: str | None = None
    source: str | None = None
    condition: str | None = None
    avoid: bool = False
    reinforcements: int = 0
    last_reinforced: str | None = None
    reasoning: str | None = None
    context: str | None = None
    limitations: str | None = None
    archived: bool = False

    def with_changes(self, **changes: Any) -> Insight:
        return self._replace(**changes)


# ---------------------------------------------------------------- validators


def _allowed(values: tuple[str, ...]) -> str:
    return ", ".join(values)


def _check_choice(field: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValidationError(field, f"invalid {field} {value!r} (allowed: {_allowed(allowed)})")
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


def check_confidence(value: object) -> float:
    """Accept a number or numeric text in [0, 1]; refuse NaN, infinities and words."""
    if isinstance(value, bool):
        number = math.nan
    elif isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = math.nan
    else:
        number = math.nan
    if math.isnan(number):
        raise ValidationError(
            "confidence", f"confidence must be a number from 0 to 1, got {value!r}"
        )
    if not 0.0 <= number <= 1.0:
        raise ValidationError("confidence", f"confidence must be between 0 and 1, got {value!r}")
    return round(number, CONFIDENCE_DIGITS)


def check_claim(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError("claim", "claim must be a non-empty text")
    return value.strip()


def normalize_claim(value: object) -> str:
    """A claim typed on the command line becomes one line: runs of white space fold."""
    return " ".join(check_claim(value).split())


def optional_text(name: str, value: object) -> str | None:
    """Optional text fields: empty means absent (an empty string clears a field)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(name, f"{name} must be text, got {type(value).__name__}")
    stripped = value.strip()
    return stripped or None


def parse_tags(value: object) -> tuple[str, ...]:
    """Tags from a comma list or a list: trimmed, empty pieces dropped, first spelling kept."""
    if value is None:
        return ()
    if isinstance(value, str):
        pieces: list[object] = list(value.split(","))
    elif isinstance(value, list | tuple):
        pieces = list(value)
    else:
        raise ValidationError("tags", "tags must be a comma-separated text or a list of texts")
    tags: list[str] = []
    seen: set[str] = set()
    for piece in pieces:
        if not isinstance(piece, str | int | float) or isinstance(piece, bool):
            raise ValidationError("tags", f"tag must be text, got {piece!r}")
        tag = " ".join(str(piece).split())
        if tag and tag.lower() not in seen:
            seen.add(tag.lower())
            tags.append(tag)
    return tuple(tags)


def check_reinforcements(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(
            "reinforcements", f"reinforcements must be a whole number ≥ 0, got {value!r}"
        )
    return value


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
    from chitin.model.ids import check_id

    check_id(insight.id)
    check_type(insight.type)
    check_claim(insight.claim)
    check_confidence(insight.confidence)
    check_provenance(insight.provenance)
    check_reinforcements(insight.reinforcements)
    check_trigger_fields(insight.type, insight.condition, insight.avoid)
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
    """Read ISO 8601 (any offset) or chitin 1.x's 'YYYY-MM-DD HH:MM:SS' as UTC."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        text = value.strip()
        if _LEGACY_STAMP.match(text):
            text = text.replace(" ", "T")
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError(
                name, f"{name} must be an ISO 8601 time such as 2026-11-29T12:00:00Z, got {value!r}"
            ) from None
    else:
        raise ValidationError(name, f"{name} must be a time, got {value!r}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


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


def js_number(value: float | int) -> str:
    """How JavaScript prints a number: 1 not 1.0, shortest round-trip digits otherwise."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


# ---------------------------------------------------------------- public shape


def to_public_dict(insight: Insight) -> dict[str, Any]:
    """The original's JSON shape (camelCase, absent fields omitted) plus our extra keys."""
    data: dict[str, Any] = {"id": insight.id, "type": insight.type, "claim": insight.claim}
    for name in TEXT_FIELDS:
        value = getattr(insight, name)
        if value is not None:
            data[name] = value
    data["confidence"] = insight.confidence
    data["tags"] = list(insight.tags)
    for name in ("source", "provenance", "condition"):
        value = getattr(insight, name)
        if value is not None:
            data[name] = value
    data["avoid"] = insight.avoid
    data["createdAt"] = insight.created
    data["updatedAt"] = insight.updated
    data["reinforcementCount"] = insight.reinforcements
    if insight.last_reinforced is not None:
        data["lastReinforcedAt"] = insight.last_reinforced
    data["archived"] = insight.archived
    return data


# ---------------------------------------------------------------- embedding


def embedding_text(insight: Insight) -> str:
    """What an embedding of the insight is made from: the claim, the situation it is for,
    its context and its reasoning. A change to any of them makes the vector stale."""
    parts = [insight.claim]
    if insight.condition:
        parts.append(f"When {insight.condition}")
    parts.extend(p for p in (insight.context, insight.reasoning) if p)
    return " — ".join(parts)


def text_hash(text: str) -> str:
    import hashlib

    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


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
