"""Sharing with Carapace, as pure rules: what may be promoted, how an insight maps to a
contribution and back, and what the server would refuse (checked here first, so a
doomed request never uses one of the ten creates an agent has per hour).

The server's limits and its content scanner are those of Morpheis/carapace at commit
889632c, as ``shared/reference/carapace-api.md`` describes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from chitin.errors import ValidationError
from chitin.model.insight import (
    TYPES,
    Insight,
    check_carapace_id,
    check_confidence,
    normalize_claim,
    optional_text,
    parse_tags,
    tag_key,
)

DEFAULT_URL = "https://carapaceai.com/api/v1"
DEFAULT_PERSONAL_TAGS: tuple[str, ...] = ("boss", "human", "personal", "private")

# What lets remote text drive a terminal: control characters (escape sequences among
# them) and the bidirectional ones that reorder what is read; and line breaks, with
# which one field of the answer would print lines (a contributor, an id) of its own.
_CONTROL = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def shown(value: object) -> str:
    """Remote text made safe to print on one line: control, line-break and bidirectional
    characters become ``\\u`` escapes, so a server cannot move the cursor, recolour the
    screen or add lines of its own."""
    text = "" if value is None else str(value)
    return _CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


# Never shared, whatever --force says: a relational insight is about a person, and a
# trigger is a reflex tuned to one agent and its human (the original's guide says so;
# its code let both through under --force, and triggers even without it).
NEVER_SHARED: dict[str, str] = {
    "relational": "Relational insights are personal and should not be shared publicly",
    "trigger": "Trigger insights are reflexes tuned to this agent and should not be shared",
}

# provenance → (minimum confidence, minimum reinforcements); None is "no provenance".
THRESHOLDS: dict[str | None, tuple[float, int]] = {
    "directive": (0.70, 1),
    "correction": (0.70, 1),
    None: (0.70, 1),
    "observation": (0.75, 2),
    "reflection": (0.80, 2),
    "external": (0.80, 2),
    "social": (0.85, 3),
}

# What the server accepts (its validation messages name these limits).
MAX_LENGTHS: dict[str, int] = {
    "claim": 2000,
    "reasoning": 5000,
    "applicability": 3000,
    "limitations": 3000,
    "question": 2000,
    "context": 5000,
    "displayName": 100,
    "description": 500,
}
MAX_TAGS = 20
MAX_TAG_LENGTH = 100
MAX_RESULTS = 20
MAX_BODY_BYTES = 50 * 1024
# Seconds a whole Carapace command may take, retries and waits included: a server
# that answers a byte at a time must not hold a session start.
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0
SEARCH_MODES: tuple[str, ...] = ("vector", "bm25", "hybrid")
SEARCH_MODE_ALIASES = {"semantic": "vector"}  # chitin 1.4.5 offered "semantic"

# The content scanner reads a contribution's four texts; URLs it refuses in two of them.
_SCANNED = ("claim", "reasoning", "applicability", "limitations")
_URL_SCANNED = ("claim", "reasoning")
_URL = re.compile(r"https?://\S*", re.IGNORECASE)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
# The phrases it flags: overriding instructions, system-prompt markers, reassigning the
# reader's role, and asking for secrets.
_INJECTION = re.compile(
    r"\b(?:ignore|disregard)\s+(?:(?:all|any|your|the|previous|prior|above)\s+)+"
    r"(?:instructions|directives|rules|prompts)\b"
    r"|\[system\]|<<sys>>|<\|im_start\|>"
    r"|\byou\s+are\s+now\s+an?\s"
    r"|\b(?:reveal|print|show|output|send|share|leak)\s+(?:your|the)\s+"
    r"(?:api\s*key|secret|token|password|credentials|system\s*prompt|private\s*key)",
    re.IGNORECASE,
)
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
MAX_ZERO_WIDTH = 5


class Verdict(NamedTuple):
    """Why an insight may not be promoted: ``blocked`` reasons hold under --force,
    ``overridable`` ones are what --force lifts."""

    blocked: tuple[str, ...]
    overridable: tuple[str, ...]

    @property
    def promotable(self) -> bool:
        return not self.blocked and not self.overridable


def verdict(
    insight: Insight, personal_terms: Iterable[str], sent: Mapping[str, Any] | None = None
) -> Verdict:
    """The original's checks, in its order, with the type block made absolute and the
    personal check extended from the insight's tags to everything that is ``sent``."""
    blocked = (NEVER_SHARED[insight.type],) if insight.type in NEVER_SHARED else ()
    reasons = [*_threshold_reasons(insight)]
    personal = personal_found(insight, personal_terms, sent)
    if personal:
        reasons.append(
            f"Contains personal/human-specific terms ({'; '.join(personal)}) "
            "— review content before sharing"
        )
    return Verdict(blocked, tuple(reasons))


def _threshold_reasons(insight: Insight) -> Iterable[str]:
    minimum, count = THRESHOLDS.get(insight.provenance, THRESHOLDS[None])
    named = (
        f"{insight.provenance} provenance"
        if insight.provenance
        else "an insight without provenance"
    )
    if insight.confidence < minimum:
        yield f"Low confidence ({insight.confidence}) — {named} requires ≥{minimum}"
    if insight.reinforcements < count:
        if count == 1:
            yield "Never reinforced — insight hasn't been validated through repeated experience"
        else:
            yield (
                f"Insufficient reinforcement ({insight.reinforcements}×) — "
                f"{named} requires ≥{count}"
            )


def personal_found(
    insight: Insight, personal_terms: Iterable[str], sent: Mapping[str, Any] | None
) -> list[str]:
    """Where a personal term appears: as one of the insight's tags or of the tags sent,
    or as a word of the text sent (``tags: boss``, ``claim: ken``)."""
    # Tags by the store's one key (NFKC and casefold: "ＢＯＳＳ" is "boss"). A text's
    # words by the same key too, each word cut from the text as written: keying the
    # whole text first could join or split words (NFKC turns "ﬁ" into "fi", "①" into
    # "1"), and a word is compared with a term, which is a tag.
    terms = {tag_key(term) for term in personal_terms}
    found: list[str] = []
    tags = [*insight.tags, *((sent or {}).get("domainTags") or [])]
    hits = sorted({tag_key(t) for t in tags if tag_key(t) in terms})
    if hits:
        found.append(f"tags: {', '.join(hits)}")
    for field, value in (sent or {}).items():
        if isinstance(value, str) and field in MAX_LENGTHS:
            words = {tag_key(w) for w in re.findall(r"\w+", value)}
            named = sorted(words & terms)
            if named:
                found.append(f"{field}: {', '.join(named)}")
    return found


def check_personal_terms(value: object) -> tuple[str, ...]:
    """chitin.yaml's ``carapace.personal_tags``: a list of words (or a comma text)."""
    try:
        terms = parse_tags(value)
    except ValidationError:
        terms = None
    if terms is None or not all(re.fullmatch(r"[\w-]+", t) for t in terms):
        raise ValidationError(
            "carapace.personal_tags",
            "chitin.yaml: carapace.personal_tags must be a list of words, "
            f"such as [{', '.join(DEFAULT_PERSONAL_TAGS)}]",
        )
    return terms


def check_timeout(value: object) -> float:
    """$CARAPACE_TIMEOUT or chitin.yaml's ``carapace.timeout``: seconds, 1 to 3600."""
    try:
        seconds = float(value) if isinstance(value, (int, float, str)) else float("nan")
    except ValueError:
        seconds = float("nan")
    if isinstance(value, bool) or not 1 <= seconds <= MAX_TIMEOUT:
        raise ValidationError(
            "carapace.timeout",
            f"the Carapace timeout must be a number of seconds from 1 to {MAX_TIMEOUT:g}, "
            f"got {str(value)[:40]!r} (from $CARAPACE_TIMEOUT or carapace.timeout "
            "in chitin.yaml)",
        )
    return seconds


# ---------------------------------------------------------------- mapping


# An empty --domain-tags: 1.4.5 sent the insight's own tags (its "" was false), which
# no one asking for no tags means; a promotion with none but provenance is no better.
# A query's would search every tag, quietly: refused alike.
_NO_TAG = "no tag given; give one or more, comma-separated (--domain-tags testing,python)"
NO_DOMAIN_TAG = f"{_NO_TAG}, or leave the option out to send the insight's own tags"
NO_QUERY_TAG = f"{_NO_TAG}, or leave the option out to search every tag"


def contribution_of(insight: Insight, domain_tags: Sequence[str] | None) -> dict[str, Any]:
    """The request body for ``POST /contributions``, in the original's key order.

    ``domain_tags`` replaces the insight's tags when given; either way a
    ``provenance:<p>`` tag says how the insight was learned."""
    body: dict[str, Any] = {"claim": insight.claim, "confidence": insight.confidence}
    for field, name in (
        ("reasoning", "reasoning"),
        ("applicability", "context"),
        ("limitations", "limitations"),
    ):
        value = getattr(insight, name)
        if value:
            body[field] = value
    tags = list(insight.tags if domain_tags is None else domain_tags)
    if insight.provenance:
        body["provenance"] = insight.provenance  # ignored by the server; sent as 1.4.5 does
        marker = f"provenance:{insight.provenance}"
        if tag_key(marker) not in {tag_key(t) for t in tags}:
            tags.append(marker)
    body["domainTags"] = tags
    return body


def insight_fields(contribution: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """``contribute``'s fields for an imported contribution (checked as any input is)."""
    cid = contribution_id(contribution)
    fields: dict[str, Any] = {
        "type": kind,
        "claim": normalize_claim(contribution.get("claim")),
        "confidence": check_confidence(contribution.get("confidence")),
        "tags": parse_tags(contribution.get("domainTags")),
        "source": f"carapace:{cid}",
        "provenance": "external",
    }
    for name, field in (
        ("reasoning", "reasoning"),
        ("context", "applicability"),
        ("limitations", "limitations"),
    ):
        value = optional_text(name, contribution.get(field))
        if value:
            fields[name] = value
    return fields


def contribution_id(contribution: Mapping[str, Any], what: str = "") -> str:
    """The id in the server's answer; ``what`` says what it answered ("for
    contribution c-1"), for the message if the id is bad."""
    try:
        cid = check_carapace_id(contribution.get("id"))
    except ValidationError as refused:
        raise from_server(refused, what or "with a bad contribution id") from None
    if cid is None:
        said = f"Carapace answered {what}".rstrip()
        raise ValidationError("id", f"{said} without a contribution id")
    return cid


def from_server(refused: ValidationError, what: str) -> ValidationError:
    """``refused``, said of a value the Carapace server sent, not one the user typed
    ("invalid Carapace id 5" read as the user's mistake)."""
    return ValidationError(refused.field, f"Carapace answered {what}: {refused}")


def check_import_type(value: str) -> str:
    """``import-carapace --type``: any type but a trigger, which needs a condition that
    a contribution does not carry."""
    allowed = tuple(t for t in TYPES if t != "trigger")
    if value not in allowed:
        raise ValidationError("type", f"invalid type {value!r} (allowed: {', '.join(allowed)})")
    return value


def check_search_mode(value: str) -> str:
    mode = SEARCH_MODE_ALIASES.get(value, value)
    if mode not in SEARCH_MODES:
        allowed = ", ".join((*SEARCH_MODES, *SEARCH_MODE_ALIASES))
        raise ValidationError("search-mode", f"invalid search mode {value!r} (allowed: {allowed})")
    return mode


# ---------------------------------------------------------------- what the server refuses


def refusals(body: Mapping[str, Any]) -> list[str]:
    """What the server would refuse in ``body``, each naming the field, in field order.
    Lengths count characters, as the server's JavaScript does (UTF-16 units)."""
    found: list[str] = []
    for field, value in body.items():
        if isinstance(value, str):
            found.extend(_text_refusals(field, value))
    tags = body.get("domainTags")
    if isinstance(tags, list):
        found.extend(_tag_refusals(tags))
    return found


def _text_refusals(field: str, value: str) -> Iterable[str]:
    limit = MAX_LENGTHS.get(field)
    length = _js_length(value)
    if limit is not None and length > limit:
        yield f"{field} is {length} characters; Carapace takes at most {limit}"
    if field in ("claim", "displayName", "question") and not value.strip():
        yield f"{field} is blank"
    if field not in _SCANNED:
        return
    if len(_ZERO_WIDTH.findall(value)) > MAX_ZERO_WIDTH:
        yield f"{field} holds more than {MAX_ZERO_WIDTH} zero-width characters"
    url = _URL.search(value) if field in _URL_SCANNED else None
    if url:
        yield f"{field} holds a URL ({_clip(url.group())}), which Carapace's scanner refuses"
    run = _BASE64_RUN.search(value)
    if run:
        yield (
            f"{field} holds a {len(run.group())}-character base64-like run "
            f"({_clip(run.group(), 12)}), which Carapace's scanner refuses"
        )
    phrase = _INJECTION.search(value)
    if phrase:
        yield f"{field} holds {phrase.group().strip()!r}, which Carapace's scanner refuses"


def _tag_refusals(tags: Sequence[object]) -> Iterable[str]:
    if len(tags) > MAX_TAGS:
        yield f"domainTags: {len(tags)} tags; Carapace takes at most {MAX_TAGS}"
    for tag in tags:
        if isinstance(tag, str) and _js_length(tag) > MAX_TAG_LENGTH:
            yield (
                f"domainTags: the tag {_clip(tag)!r} is {_js_length(tag)} characters; "
                f"Carapace takes at most {MAX_TAG_LENGTH}"
            )


def _js_length(text: str) -> int:
    """The length JavaScript gives a string: characters beyond the BMP count twice."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
