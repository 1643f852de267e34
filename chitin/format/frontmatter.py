"""Frontmatter values: writing YAML scalars, and reading chitin's own form quickly.

Nearly every file is one chitin wrote, in its canonical form (see markdown.py).
Reading that form line by line is ~10× faster than PyYAML, whose object
construction runs in Python even with the C loader, and rebuilding the cache of
100,000 insights depends on it. Any line the fast reader is not sure about (quotes,
comments, unknown keys, odd numbers) sends the whole frontmatter to PyYAML; property
tests check that both agree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from chitin.errors import ValidationError
from chitin.format.layout import clipped
from chitin.model.evidence import is_entry
from chitin.model.fields import COUNT, FILE_FIELDS, FLAG, LIST, NUMBER, TEXT, TIME, WORD
from chitin.model.insight import _shown as shown_value  # a refused value as JSON writes it


def read_frontmatter(front: str) -> dict[str, Any]:
    """The frontmatter's keys and values, as PyYAML reads them."""
    data = _read_canonical(front)
    return _load_yaml(front) if data is None else data


_PLAIN_START = re.compile(r"^[A-Za-z0-9_(./$~+=<^]")
_NOT_PRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


def time_or(data: dict[str, Any], key: str, default: str) -> Any:
    """The time key ``key`` of ``data``, or ``default`` where it is not written (or is
    written empty): 0, [] and false are no times, to be named as such, not read as it."""
    return default if data.get(key) in (None, "") else data[key]


def read_avoid(data: dict[str, Any]) -> bool:
    """The ``avoid`` flag: a null one (``avoid: ~``, ``avoid:``) is absent, as every
    other optional field's null is, and as contribute --json reads ``"avoid": null``;
    any other value than a boolean is named as JSON writes it, not as Python does."""
    avoid = data.get("avoid")
    if avoid is None:
        return False
    if not isinstance(avoid, bool):
        raise ValidationError("avoid", f"avoid must be true or false, got {shown_value(avoid)}")
    return avoid


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
    if _safe_text(value) is not None:
        return True  # what the fast reader reads as text reads so in PyYAML (tests)
    import yaml

    tag = yaml.resolver.Resolver().resolve(  # type: ignore[no-untyped-call]
        yaml.ScalarNode, value, (True, False)
    )
    return bool(tag == "tag:yaml.org,2002:str")


# ---------------------------------------------------------------- the fast reader

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


# A reader of one value of each form, in chitin's own spelling; None: not sure.
_FAST_FORMS: dict[str, Any] = {
    TEXT: _safe_text,
    NUMBER: lambda v: float(v) if _CONFIDENCE.fullmatch(v) else None,
    FLAG: lambda v: {"true": True, "false": False}.get(v),
    COUNT: lambda v: int(v) if _COUNT.fullmatch(v) else None,
    TIME: lambda v: v if _STAMP.fullmatch(v) else None,
}
_FAST_VALUES: dict[str, Any] = {
    field.name: _choice(field.choices) if field.form == WORD else _FAST_FORMS[field.form]
    for field in FILE_FIELDS
    if field.form != LIST
}


# Block lists of plain scalars: tags, and the evidence log (model/evidence.py).
_FAST_LISTS: dict[str, Any] = {
    **{f"{field.name}:": _safe_text for field in FILE_FIELDS if field.form == LIST},
    "evidence:": lambda v: v if is_entry(v) else None,
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
        if key in _FAST_LISTS and not value:
            key, read_item = key[:-1], _FAST_LISTS[key]
            items = []
            while index < len(lines) and lines[index].startswith("- "):
                item = read_item(lines[index][2:])
                if item is None:
                    return None
                items.append(item)
                index += 1
            parsed = items or None
        else:
            reader = _FAST_VALUES.get(key)
            parsed = reader(value) if reader is not None and value else None
        if parsed is None or key in data:
            return None
        data[key] = parsed
    return data


def _load_yaml(front: str) -> dict[str, Any]:
    data = load_yaml(front, "frontmatter YAML")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValidationError("frontmatter", "frontmatter must be a mapping of keys to values")
    return data


def load_yaml(text: str, what: str, field: str = "frontmatter", first_line: int = 2) -> Any:
    """``text`` read by PyYAML's safe loader (the C one when there is one), refusing
    anchors and aliases: with them a file of a few hundred bytes can stand for billions
    of values (the "billion laughs"), and no insight needs them. A ValidationError (of
    ``field``) names ``what`` did not parse, and where (``text`` begins on line
    ``first_line`` of its file)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        if "&" in text or "*" in text:  # else neither can be there: no second pass
            _refuse_aliases(yaml, yaml.parse(text, Loader=loader))
        return _load_unique(yaml, loader(text), first_line)  # a safe loader (C or Python)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + first_line})" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        if problem == LIBYAML_TOO_DEEP:  # libyaml's own limit, as PyYAML's RecursionError
            raise _too_deep(field, what, where) from None
        raise ValidationError(field, clipped(f"{what} does not parse{where}: {problem}")) from None
    except RecursionError:  # PyYAML composes and constructs recursively, once per [ or {
        raise _too_deep(field, what, "") from None
    except (ValueError, OverflowError) as error:
        # A value YAML reads but Python cannot hold: a date such as 2026-13-45, an
        # integer of 5,000 digits (the words of markdown._unreadable).
        reason = str(error).split(";")[0].split("\n")[0]
        raise ValidationError(
            field, clipped(f"{what} holds a value out of range: {reason}")
        ) from None


LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


def _too_deep(field: str, what: str, where: str) -> ValidationError:
    return ValidationError(field, f"{what} is nested too deeply to read{where}")


def _load_unique(yaml: ModuleType, loader: Any, first_line: int) -> Any:
    """What ``yaml.load`` gives, refusing a key written twice in one mapping: PyYAML
    keeps the last silently, so a line added above the old one would change nothing
    (and the next rewrite would drop it), where YAML says keys are unique."""
    try:
        node = loader.get_single_node()
        if node is not None:
            _refuse_repeated_keys(yaml, node, first_line)
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()


def _refuse_repeated_keys(yaml: ModuleType, node: Any, first_line: int) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: dict[object, int] = {}  # key: the line it is first on
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name in seen:
                raise yaml.MarkedYAMLError(
                    problem=f"{name} is written twice (lines {seen[name] + first_line} and "
                    f"{key.start_mark.line + first_line}); keep one",
                    problem_mark=key.start_mark,
                )
            if name is not None:
                seen[name] = key.start_mark.line
            _refuse_repeated_keys(yaml, value, first_line)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _refuse_repeated_keys(yaml, item, first_line)


def _refuse_aliases(yaml: ModuleType, events: Iterable[Any]) -> None:
    """Stop at the first anchor or alias, before anything is built from them. ``yaml``:
    the module, which load_yaml has loaded."""
    for event in events:
        alias = isinstance(event, yaml.AliasEvent)
        if alias or getattr(event, "anchor", None) is not None:
            kind = "an alias (*name)" if alias else "an anchor (&name)"
            raise yaml.MarkedYAMLError(
                problem=f"{kind} is not allowed; write each value out in full",
                problem_mark=event.start_mark,
            )
