"""The insight file format: YAML frontmatter plus a Markdown body.

    ---
    id: tdd-red-green-refactor-k3f9
    type: skill
    confidence: 0.9
    tags:
    - tdd
    provenance: observation
    reinforcements: 0
    created: 2026-11-29T12:00:00Z
    updated: 2026-11-29T12:00:00Z
    ---

    The claim, as the body's first paragraph.

    ## Reasoning

    …

Serialization is deterministic: known keys in a fixed order, one per line, block
lists, shortest floats, one trailing newline. What a person added by hand (unknown
frontmatter keys, extra paragraphs, other sections) is kept in a ``Layout`` and
written back, so ``serialize(*parse(text)) == text`` for every file chitin wrote.
One key per line also keeps git's three-way merges line-local.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from chitin.errors import ValidationError
from chitin.model.ids import check_id
from chitin.model.insight import (
    PROVENANCES,
    TEXT_FIELDS,
    TYPES,
    Insight,
    canonical_timestamp,
    check_claim,
    check_confidence,
    check_provenance,
    check_reinforcements,
    check_trigger_fields,
    check_type,
    parse_tags,
)

KEY_ORDER: tuple[str, ...] = (
    "id",
    "type",
    "confidence",
    "tags",
    "provenance",
    "source",
    "condition",
    "avoid",
    "reinforcements",
    "created",
    "updated",
    "last_reinforced",
)
SECTION_TITLES: dict[str, str] = {
    "reasoning": "Reasoning",
    "context": "Context",
    "limitations": "Limitations",
}
_CLAIM = ("claim", "")


@dataclass(frozen=True)
class Layout:
    """What a person added around the known fields, kept for the next rewrite.

    ``extra_keys`` are raw frontmatter chunks (a key line plus its continuation
    lines). ``body`` is the order of body parts: ``("claim", "")``,
    ``("section", name)`` for a known section, or ``("text", raw)`` for anything else.
    """

    extra_keys: tuple[str, ...] = ()
    body: tuple[tuple[str, str], ...] = (_CLAIM,)


DEFAULT_LAYOUT = Layout()


# ---------------------------------------------------------------- writing


def serialize(insight: Insight, layout: Layout = DEFAULT_LAYOUT) -> str:
    lines = ["---", *_frontmatter_lines(insight)]
    lines.extend(layout.extra_keys)
    lines.append("---")
    return "\n".join(lines) + "\n\n" + "\n\n".join(_body_parts(insight, layout)) + "\n"


def _frontmatter_lines(insight: Insight) -> list[str]:
    lines = [
        f"id: {yaml_scalar(insight.id)}",
        f"type: {insight.type}",
        f"confidence: {insight.confidence!r}",
    ]
    if insight.tags:
        lines.append("tags:")
        lines.extend(f"- {yaml_scalar(tag)}" for tag in insight.tags)
    for name in ("provenance", "source", "condition"):
        value = getattr(insight, name)
        if value is not None:
            lines.append(f"{name}: {yaml_scalar(value)}")
    if insight.type == "trigger":
        lines.append(f"avoid: {'true' if insight.avoid else 'false'}")
    lines.append(f"reinforcements: {insight.reinforcements}")
    lines.append(f"created: {insight.created}")
    lines.append(f"updated: {insight.updated}")
    if insight.last_reinforced is not None:
        lines.append(f"last_reinforced: {insight.last_reinforced}")
    return lines


def _body_parts(insight: Insight, layout: Layout) -> list[str]:
    parts: list[str] = []
    placed: set[str] = set()
    for kind, value in layout.body:
        if kind == "claim":
            parts.append(_escape(insight.claim))
        elif kind == "section":
            placed.add(value)
            text = getattr(insight, value)
            if text is not None:
                parts.append(f"## {SECTION_TITLES[value]}\n\n{_escape(text)}")
        else:
            parts.append(value)
    for name in TEXT_FIELDS:
        text = getattr(insight, name)
        if name not in placed and text is not None:
            parts.append(f"## {SECTION_TITLES[name]}\n\n{_escape(text)}")
    return parts


def _escape(text: str) -> str:
    # A line starting with "## " would open a section; "\## " reads back as "## ".
    return re.sub(r"(?m)^(\\*)## ", r"\\\1## ", text)


def _unescape(text: str) -> str:
    return re.sub(r"(?m)^\\(\\*## )", r"\1", text)


_PLAIN_START = re.compile(r"^[A-Za-z0-9_(./$~+=<^]")
_NOT_PRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


def yaml_scalar(value: str) -> str:
    """A YAML scalar for ``value``: plain when that reads back unchanged, else double-quoted."""
    if _is_plain_safe(value):
        return value
    quoted = json.dumps(value, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _is_plain_safe(value: str) -> bool:
    if not value or value != value.strip() or not _PLAIN_START.match(value):
        return False
    if any(ch < " " for ch in value) or _NOT_PRINTABLE.search(value):
        return False
    if ": " in value or " #" in value or value.endswith(":"):
        return False
    return _resolves_to_str(value)


def _resolves_to_str(value: str) -> bool:
    import yaml

    tag = yaml.resolver.Resolver().resolve(  # type: ignore[no-untyped-call]
        yaml.ScalarNode, value, (True, False)
    )
    return bool(tag == "tag:yaml.org,2002:str")


# ---------------------------------------------------------------- reading

_FENCE = re.compile(r"^---[ \t]*$", re.MULTILINE)
_HEADING = re.compile(r"^## +(\S.*?)\s*$")


def parse(
    text: str,
    *,
    fallback_id: str,
    fallback_type: str | None,
    fallback_time: str,
) -> tuple[Insight, Layout]:
    """Read one insight file and what a person added to it, for a rewrite.

    Raises ValidationError naming the field that is wrong.
    """
    front, body = _split(text)
    insight = _insight_from(_frontmatter(front), body, fallback_id, fallback_type, fallback_time)
    return insight, Layout(extra_keys=_extra_chunks(front), body=_body_layout(body))


def read_insight(
    text: str, *, fallback_id: str, fallback_type: str | None, fallback_time: str
) -> Insight:
    """Like ``parse``, without the layout: for readers that never write the file back."""
    front, body = _split(text)
    return _insight_from(_frontmatter(front), body, fallback_id, fallback_type, fallback_time)


def _frontmatter(front: str) -> dict[str, Any]:
    data = _read_canonical(front)
    return _load_yaml(front) if data is None else data


def _split(text: str) -> tuple[str, str]:
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise ValidationError("frontmatter", "file does not start with a '---' frontmatter line")
    end = _FENCE.search(text, 4)
    if end is None:
        raise ValidationError("frontmatter", "frontmatter has no closing '---' line")
    return text[4 : end.start()], text[end.end() + 1 :]


# ---------------------------------------------------------------- the fast path
#
# Nearly every file is one chitin wrote, in the canonical form above. Reading that form
# line by line is ~10× faster than PyYAML, whose object construction runs in Python even
# with the C loader; rebuilding the cache of 100,000 insights depends on it. Any line
# this reader is not sure about (quotes, comments, unknown keys, odd numbers) sends the
# whole frontmatter to PyYAML, and a property test checks that both agree.

_SAFE_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9 _.,;()/'!?&+=<>@$%*~-]*")
# YAML 1.1 reads these words as booleans or null, not as text.
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_CONFIDENCE = re.compile(r"(?:0|1)(?:\.[0-9]+)?")
_COUNT = re.compile(r"0|[1-9][0-9]*")
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def _safe_text(value: str) -> str | None:
    if _SAFE_TEXT.fullmatch(value) and value[-1] != " " and value.lower() not in _YAML_WORDS:
        return value
    return None


def _choice(allowed: tuple[str, ...]) -> Any:
    return lambda value: value if value in allowed else None


_FAST_VALUES: dict[str, Any] = {
    "id": _safe_text,
    "type": _choice(TYPES),
    "confidence": lambda v: float(v) if _CONFIDENCE.fullmatch(v) else None,
    "provenance": _choice(PROVENANCES),
    "source": _safe_text,
    "condition": _safe_text,
    "avoid": lambda v: {"true": True, "false": False}.get(v),
    "reinforcements": lambda v: int(v) if _COUNT.fullmatch(v) else None,
    "created": lambda v: v if _STAMP.fullmatch(v) else None,
    "updated": lambda v: v if _STAMP.fullmatch(v) else None,
    "last_reinforced": lambda v: v if _STAMP.fullmatch(v) else None,
}


def _read_canonical(front: str) -> dict[str, Any] | None:
    """The frontmatter as PyYAML would read it, if it is in chitin's own form; else None."""
    data: dict[str, Any] = {}
    lines = front.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    index = 0
    parsed: Any
    while index < len(lines):
        key, _, value = lines[index].partition(": ")
        index += 1
        if key == "tags:" and not value:
            tags = []
            while index < len(lines) and lines[index].startswith("- "):
                tag = _safe_text(lines[index][2:])
                if tag is None:
                    return None
                tags.append(tag)
                index += 1
            key, parsed = "tags", tags or None
        else:
            reader = _FAST_VALUES.get(key)
            parsed = reader(value) if reader is not None and value else None
        if parsed is None or key in data:
            return None
        data[key] = parsed
    return data


def _load_yaml(front: str) -> dict[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(front, Loader=loader)  # a safe loader (C or Python)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ValidationError(
            "frontmatter", f"frontmatter YAML does not parse{where}: {problem}"
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValidationError("frontmatter", "frontmatter must be a mapping of keys to values")
    return data


def _insight_from(
    data: dict[str, Any], body: str, fallback_id: str, fallback_type: str | None, now: str
) -> Insight:
    kind = data.get("type", fallback_type if fallback_type in TYPES else None)
    created = canonical_timestamp("created", data.get("created") or now)
    last = data.get("last_reinforced")
    fields = _body_fields(body)
    avoid = data.get("avoid", False)
    if not isinstance(avoid, bool):
        raise ValidationError("avoid", f"avoid must be true or false, got {avoid!r}")
    if "confidence" not in data:
        raise ValidationError("confidence", "confidence is missing (a number from 0 to 1)")
    condition = _text("condition", data.get("condition"))
    checked_type = check_type(kind)
    check_trigger_fields(checked_type, condition, avoid)
    return Insight(
        id=check_id(str(data.get("id", fallback_id))),
        type=checked_type,
        claim=check_claim(fields.get("claim")),
        confidence=check_confidence(data["confidence"]),
        created=created,
        updated=canonical_timestamp("updated", data.get("updated") or created),
        tags=parse_tags(data.get("tags")),
        provenance=check_provenance(data.get("provenance")),
        source=_text("source", data.get("source")),
        condition=condition,
        avoid=avoid,
        reinforcements=check_reinforcements(data.get("reinforcements", 0)),
        last_reinforced=canonical_timestamp("last_reinforced", last) if last else None,
        reasoning=fields.get("reasoning"),
        context=fields.get("context"),
        limitations=fields.get("limitations"),
    )


def _text(name: str, value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValidationError(name, f"{name} must be text, got {value!r}")
    text = str(value).strip()
    return text or None


def _extra_chunks(front: str) -> tuple[str, ...]:
    """Raw chunks of the keys chitin does not know, comments and all."""
    chunks: list[tuple[str | None, list[str]]] = []
    for line in front.split("\n"):
        if line and not line[0].isspace() and line[0] not in "#-" and ":" in line:
            key = line.split(":", 1)[0].strip().strip("'\"")
            chunks.append((key, [line]))
        elif chunks:
            chunks[-1][1].append(line)
        elif line.strip():
            chunks.append((None, [line]))
    kept = []
    for name, lines in chunks:
        if name not in KEY_ORDER:
            while lines and not lines[-1].strip():
                lines.pop()
            if lines:
                kept.append("\n".join(lines))
    return tuple(kept)


def _paragraphs(body: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """Split the body into its claim lines and the blocks that follow, by '## ' headings."""
    lines = body.split("\n")
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    claim: list[str] = []
    while index < len(lines) and lines[index].strip() and not _HEADING.match(lines[index]):
        claim.append(lines[index].rstrip())
        index += 1
    blocks: list[tuple[str, list[str]]] = [("", [])]
    for line in lines[index:]:
        heading = _HEADING.match(line)
        if heading:
            blocks.append((heading.group(1), [line]))
        else:
            blocks[-1][1].append(line)
    return claim, blocks


def _body_fields(body: str) -> dict[str, str | None]:
    claim, blocks = _paragraphs(body)
    fields: dict[str, str | None] = {"claim": _unescape("\n".join(claim)) or None}
    for title, lines in blocks:
        name = title.lower()
        if name in SECTION_TITLES and name not in fields:
            fields[name] = _unescape("\n".join(lines[1:]).strip("\n").rstrip()) or None
    return fields


def _body_layout(body: str) -> tuple[tuple[str, str], ...]:
    _, blocks = _paragraphs(body)
    layout: list[tuple[str, str]] = [_CLAIM]
    seen: set[str] = set()
    for title, lines in blocks:
        name = title.lower()
        if name in SECTION_TITLES and name not in seen:
            seen.add(name)
            layout.append(("section", name))
            continue
        raw = "\n".join(lines).strip("\n").rstrip()
        if raw:
            layout.append(("text", raw))
    return tuple(layout)
