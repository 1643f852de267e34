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

import re
from typing import Any, NamedTuple

from chitin.errors import ValidationError
from chitin.format.body import CLAIM_PART, SECTION_TITLES, body_fields, body_layout
from chitin.format.conflicts import escape_markers, refuse_markers
from chitin.format.frontmatter import read_avoid, read_frontmatter, time_or, yaml_scalar
from chitin.format.layout import MAX_INSIGHT_BYTES, clipped, too_large
from chitin.model.fields import (
    FILE_FIELDS,
    FLAG,
    FREE_TEXTS,
    LIST,
    NUMBER,
    TEXT,
)
from chitin.model.ids import check_id
from chitin.model.insight import (
    TEXT_FIELDS,
    TYPES,
    Insight,
    canonical_timestamp,
    check_carapace_id,
    check_claim,
    check_confidence,
    check_provenance,
    check_reinforcements,
    check_text,
    check_trigger_fields,
    check_type,
    parse_tags,
)
from chitin.model.interchange import BODY_KEY, BODY_RULE, EXTRA_KEY

# The frontmatter's keys in the order they are written, then the evidence log.
KEY_ORDER: tuple[str, ...] = (*(field.name for field in FILE_FIELDS), "evidence")


class Layout(NamedTuple):
    """What a person added around the known fields, kept for the next rewrite.

    ``extra_keys`` are raw frontmatter chunks (a key line plus its continuation
    lines, and the comment lines above it). ``body`` is the order of body parts:
    ``("claim", "")``, ``("section", name)`` for a known section, or ``("text", raw)``
    for anything else. ``comments`` are the comment lines among the known keys, each
    run by the key it stands above (``""``: below every key), written back there.
    """

    extra_keys: tuple[str, ...] = ()
    body: tuple[tuple[str, str], ...] = (CLAIM_PART,)
    evidence: tuple[str, ...] = ()  # the reinforcement log (model/evidence.py)
    comments: tuple[tuple[str, str], ...] = ()


DEFAULT_LAYOUT = Layout()


# ---------------------------------------------------------------- writing


def serialize(insight: Insight, layout: Layout = DEFAULT_LAYOUT) -> str:
    evidence = [f"- {yaml_scalar(item)}" for item in layout.evidence]
    keys = [
        *_frontmatter_lines(insight),
        ("evidence", ["evidence:", *evidence] if evidence else []),
    ]
    comments = dict(layout.comments)
    lines, waiting = ["---"], []
    for name, written in keys:  # a comment above a key no longer written: above the next
        if comments.get(name):
            waiting.append(comments[name])
        if written:
            lines.extend([*waiting, *written])
            waiting = []
    lines.extend([*waiting, *layout.extra_keys, *([comments[""]] if "" in comments else [])])
    lines.append("---")
    return "\n".join(lines) + "\n\n" + "\n\n".join(_body_parts(insight, layout)) + "\n"


def _frontmatter_lines(insight: Insight) -> list[tuple[str, list[str]]]:
    """Each known key's lines (none when it is not written), in the file's order."""
    keys: list[tuple[str, list[str]]] = []
    for name, form in _WRITTEN:
        value = getattr(insight, name)
        lines: list[str] = []
        keys.append((name, lines))
        if value is None or (name == "avoid" and insight.type != "trigger"):
            continue  # absent; avoid is written for triggers only
        if form == LIST:
            if value:
                lines.append(f"{name}:")
                lines.extend(f"- {yaml_scalar(item)}" for item in value)
        elif form == TEXT:
            lines.append(f"{name}: {yaml_scalar(value)}")
        elif form == NUMBER:  # a plain decimal: the reader refuses repr's "1e-05"
            text = repr(value) if "e" not in repr(value) else f"{value:.6f}".rstrip("0")
            lines.append(f"{name}: {text}")
        elif form == FLAG:
            lines.append(f"{name}: {'true' if value else 'false'}")
        else:  # words, counts and timestamps are written as they are
            lines.append(f"{name}: {value}")
    return keys


_WRITTEN: tuple[tuple[str, str], ...] = tuple((field.name, field.form) for field in FILE_FIELDS)


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
    # One starting with a git conflict marker would make the file unreadable.
    return escape_markers(re.sub(r"(?m)^(\\*)## ", r"\\\1## ", text))


# ---------------------------------------------------------------- reading

_FENCE = re.compile(r"^---[ \t]*$", re.MULTILINE)


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
    try:
        data = read_frontmatter(front)
        insight = _insight_from(data, body, fallback_id, fallback_type, fallback_time)
        evidence = _evidence(data.get("evidence"))
    except (ValueError, OverflowError) as error:
        raise _unreadable(error) from None
    except ValidationError as error:
        raise _clipped(error) from None
    extra_keys, comments = _hand_lines(front)
    return insight, Layout(extra_keys, body_layout(body), evidence, comments)


def checked_render(text: str, insight: Insight, layout: Layout) -> str:
    """``text``, the file of ``insight`` written with ``layout``, once its hand-added keys
    (an export's, imported) read back as they were given: each one key chitin does not
    know, as a file has it, that YAML reads. One that does not (a known key, two keys,
    a ``---`` line, bad YAML) would change the insight or break its file."""
    texts = any(kind == "text" for kind, _ in layout.body)  # and its text, in its place
    if not layout.extra_keys and not texts:
        return text
    try:
        _, back = parse(text, fallback_id=insight.id, fallback_type=None, fallback_time="")
        same = back.extra_keys == layout.extra_keys
        placed = not texts or back.body == layout.body
    except ValidationError:
        same, placed = not layout.extra_keys, False
    if same and not placed:
        raise ValidationError(BODY_KEY, BODY_RULE)
    if not same:
        raise ValidationError(
            EXTRA_KEY,
            f"{EXTRA_KEY} must hold frontmatter keys chitin does not know, each one key "
            "as the file has it (its key line, then any continuation lines), in YAML",
        )
    return text


def read_insight(
    text: str,
    *,
    fallback_id: str,
    fallback_type: str | None,
    fallback_time: str,
    evidence: bool = False,
) -> Insight:
    """Like ``parse``, without the layout: for readers that never write the file back.
    With ``evidence``, the reinforcement log is checked as a write reads it (``check``:
    a file every write refuses is not one without problems)."""
    front, body = _split(text)
    try:
        data = read_frontmatter(front)
        insight = _insight_from(data, body, fallback_id, fallback_type, fallback_time)
        if evidence:
            _evidence(data.get("evidence"))
        return insight
    except (ValueError, OverflowError) as error:
        raise _unreadable(error) from None
    except ValidationError as error:
        raise _clipped(error) from None


def _unreadable(error: Exception) -> ValidationError:
    """A value YAML itself cannot build (``created: 2026-02-30``, a number of 5,000
    digits): the file is a problem like any invalid one, not a crash of every command."""
    reason = str(error).split(";")[0].split("\n")[0]
    message = f"frontmatter YAML holds a value out of range: {reason}"
    return ValidationError("frontmatter", clipped(message))


def _clipped(error: ValidationError) -> ValidationError:
    """The error with what it quotes of the file cut short: a value can be as long as
    the file, and the message is one line of a warning or of ``chitin check``."""
    message = str(error)
    shorter = clipped(message)
    return error if shorter == message else ValidationError(error.field, shorter)


def _split(text: str) -> tuple[str, str]:
    # Every reader of insight text comes here, whether from a file (files.read_file
    # refuses a larger one unread) or from git: nothing larger is parsed.
    if len(text) > MAX_INSIGHT_BYTES:
        raise ValidationError("file", too_large(len(text.encode("utf-8", "replace"))))
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    # Before any other rule: a conflicted file can hold a valid insight's shape, and
    # one that does not is better told by its markers than by what they broke.
    refuse_markers(text)
    if not text.startswith("---\n"):
        raise ValidationError("frontmatter", "file does not start with a '---' frontmatter line")
    end = _FENCE.search(text, 4)
    if end is None:
        raise ValidationError("frontmatter", "frontmatter has no closing '---' line")
    return text[4 : end.start()], text[end.end() + 1 :]


def _insight_from(
    data: dict[str, Any], body: str, fallback_id: str, fallback_type: str | None, now: str
) -> Insight:
    kind = data.get("type", fallback_type if fallback_type in TYPES else None)
    created = canonical_timestamp("created", time_or(data, "created", now))
    last = data.get("last_reinforced")
    fields = body_fields(body)
    avoid = read_avoid(data)
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
        updated=canonical_timestamp("updated", time_or(data, "updated", created)),
        tags=parse_tags(data.get("tags")),
        provenance=check_provenance(data.get("provenance")),
        **_lines(data),
        avoid=avoid,
        reinforcements=check_reinforcements(data.get("reinforcements", 0)),
        last_reinforced=canonical_timestamp("last_reinforced", last) if last else None,
        **_sections(fields),
        carapace_id=check_carapace_id(data.get("carapace_id")),
    )


# The frontmatter's free texts (model/fields.py): source, condition.
_LINES = tuple(field.name for field in FREE_TEXTS if field.form == TEXT)


def _lines(data: dict[str, Any]) -> dict[str, Any]:
    """The frontmatter's free texts, checked, by field name (None when absent)."""
    return {name: _text(name, data.get(name)) for name in _LINES}


def _sections(fields: dict[str, str | None]) -> dict[str, Any]:
    """The body's sections, checked, by field name (all of them, None when absent)."""
    return {name: _body_text(name, fields.get(name)) for name in TEXT_FIELDS}


def _body_text(name: str, value: str | None) -> str | None:
    return None if value is None else check_text(name, value)


def _evidence(value: object) -> tuple[str, ...]:
    """The reinforcement log as written; lines a person wrote differently are kept."""
    if value is None:
        return ()
    if not isinstance(value, list) or any(isinstance(item, dict | list) for item in value):
        raise ValidationError("evidence", "evidence must be a list of lines, one per reinforcement")
    return tuple(str(item) for item in value)


def _text(name: str, value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValidationError(name, f"{name} must be text, got {value!r}")
    text = check_text(name, value).strip() if isinstance(value, str) else str(value)
    return text or None


def _hand_lines(front: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Raw chunks of the keys chitin does not know, comments and all; and the comment
    lines among the known keys, each run by the key below it ("": none), where a
    rewrite puts them back (design.md §2). A comment inside a known key's list has
    no place of its own there: it is kept above the key that follows the list. The
    indented lines of a known key's value written over lines (``source: |``, an open
    quote) are that value, # or not: the rewrite writes them in it."""
    chunks: list[tuple[str | None, list[str]]] = []
    comments: dict[str, list[str]] = {}
    waiting: list[str] = []  # comment lines below a known key (or none), so far
    in_value = False  # within a known key's value written over lines
    for line in front.split("\n"):
        if in_value and (not line.strip() or line[:1].isspace()):
            chunks[-1][1].append(line)
            continue
        key, in_value = None, False
        if line.startswith("?"):  # YAML's explicit key; its ": value" line follows
            key = line[1:].strip().strip("'\"")
        elif line and not line[0].isspace() and line[0] not in "#-:" and ":" in line:
            key = line.split(":", 1)[0].strip().strip("'\"")
        if key is not None:
            if key in KEY_ORDER:
                comments.setdefault(key, []).extend(waiting)
                chunks.append((key, [line]))
                in_value = _opens_value(line.partition(":")[2])
            else:  # an unknown key takes the comments above it along
                chunks.append((key, [*waiting, line]))
            waiting = []
        elif line.lstrip().startswith("#") and (not chunks or chunks[-1][0] in KEY_ORDER):
            waiting.append(line)
        elif chunks:
            chunks[-1][1].append(line)
        elif line.strip():
            chunks.append((None, [line]))
    if waiting:
        comments.setdefault("", []).extend(waiting)
    kept = []
    for name, lines in chunks:
        if name not in KEY_ORDER:
            while lines and not lines[-1].strip():
                lines.pop()
            if lines:
                kept.append("\n".join(lines))
    runs = tuple((key, "\n".join(lines)) for key, lines in comments.items() if lines)
    return tuple(kept), runs


def _opens_value(value: str) -> bool:
    """Whether a key's value goes on over the next lines: a block scalar (``|``,
    ``>``), or a quote not closed on its line."""
    value = value.strip()
    if value[:1] in ("|", ">"):
        return True
    return value[:1] in ("'", '"') and _CLOSED_QUOTE.match(value) is None


# A quoted YAML scalar closed on its line: "…" with backslash escapes, '…' with ''.
_CLOSED_QUOTE = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^']|'')*'(?!')""")
