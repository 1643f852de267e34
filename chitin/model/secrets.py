"""Likely credentials in text: what must never reach an insight, and so a commit.

Insights are committed to git and often pushed, and a secret in git history stays
there even after the file is fixed. So writes refuse text that holds one, and
``chitin check`` reports any found in the files.

The rules aim at few false alarms. Token formats with a fixed prefix (``ghp_``,
``AKIA``, ``xoxb-`` …) are matched as they are issued. Generic forms (``Bearer …``,
``password = …``) need a value that looks random and is not a placeholder, so prose
about passwords, API keys or tokens passes. A finding names the kind of secret and
where it is, never the secret itself: messages end up in terminals and CI logs. The
rules are in secret_rules.py; this module runs them, and masks or refuses what they find.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterator
from typing import NamedTuple

from chitin.errors import ValidationError
from chitin.model.bounds import MAX_AGENT
from chitin.model.fields import GUARDED
from chitin.model.insight import Insight
from chitin.model.invisible import IGNORABLE
from chitin.model.secret_rules import RULES


class Secret(NamedTuple):
    """A likely credential: what kind, and where in the text (start, end)."""

    kind: str
    start: int
    end: int


# Characters that show as nothing (zero-width spaces and joiners, the soft hyphen,
# direction marks): a token with one inside still works once pasted, so it is looked
# at without them. And compatibility forms (full-width letters) as their plain ones.
def _normalised(text: str) -> tuple[str, list[int]]:
    """``text`` as the rules read it, and for each of its characters the index of the
    character of ``text`` it came from (so that a find is located in the original)."""
    if text.isascii():
        return text, []
    out: list[str] = []
    where: list[int] = []
    for index, ch in enumerate(text):
        if ch.isascii():
            out.append(ch)
            where.append(index)
        elif unicodedata.category(ch) != "Cf" and ch not in IGNORABLE:
            plain = unicodedata.normalize("NFKC", ch)
            out.extend(plain)
            where.extend([index] * len(plain))
    return "".join(out), where


def find_secrets(text: str) -> list[Secret]:
    """Every likely credential in ``text``, in order; overlapping finds are reported once
    (``api_key = "sk-…"`` is an OpenAI-style key, not also an assignment). Invisible
    characters are ignored, so a token with one inside is still found."""
    clean, where = _normalised(text)
    found = _unique(_matches(clean))
    if not where:
        return found
    return [Secret(s.kind, where[s.start], where[s.end - 1] + 1 if s.end else 0) for s in found]


def _unique(matches: Iterator[Secret]) -> list[Secret]:
    found = sorted(matches, key=lambda s: (s.start, -s.end))
    kept: list[Secret] = []
    for secret in found:
        if not kept or secret.start >= kept[-1].end:
            kept.append(secret)
        elif _rank(secret) < _rank(kept[-1]) and secret.end <= kept[-1].end + 1:
            kept[-1] = secret
    return kept


def _rank(secret: Secret) -> int:
    return next(i for i, rule in enumerate(RULES) if rule.kind == secret.kind)


def _matches(text: str) -> Iterator[Secret]:
    folded = text.lower()
    for rule in RULES:
        haystack = folded if rule.fold else text
        if len(text) < rule.shortest:
            continue
        if rule.needles and not any(needle in haystack for needle in rule.needles):
            continue
        for match in re.finditer(rule.pattern, text):
            if rule.accept(match):  # a rule may name the part that is the secret
                part = "secret" if "secret" in match.re.groupindex else 0
                yield Secret(rule.kind, match.start(part), match.end(part))


# The fields of an insight a person or an agent writes, in the order they are named.
# The id too: an import gives it, and it becomes a file name and a commit message.
GUARDED_FIELDS: tuple[str, ...] = GUARDED  # model/fields.py


def field_text(insight: Insight, name: str) -> str:
    value = getattr(insight, name)
    if name == "tags":
        return "\n".join(value)
    return value or ""


def secrets_in(insight: Insight, before: Insight | None = None) -> list[tuple[str, Secret]]:
    """(field, secret) for each likely credential in the guarded fields of ``insight``;
    with ``before``, only in the fields that differ from it (an update)."""
    return [
        (name, secret)
        for name in GUARDED_FIELDS
        if before is None or getattr(before, name) != getattr(insight, name)
        for secret in find_secrets(field_text(insight, name))
    ]


def refuse_secrets(insight: Insight, before: Insight | None = None) -> None:
    """Raise ValidationError naming the first field that holds a likely credential."""
    found = secrets_in(insight, before)
    if found:
        field, secret = found[0]
        raise ValidationError(field, refusal(field, secret.kind))


def refuse_secret_text(field: str, text: str) -> None:
    """Raise ValidationError if ``text``, bound for ``field``, holds a likely credential."""
    found = find_secrets(text)
    if found:
        raise ValidationError(field, refusal(field, found[0].kind))


def redacted(text: str, spare: Collection[str] = ()) -> tuple[str, list[str]]:
    """``text`` with each likely credential replaced by ``[redacted <kind>]``, and the
    kinds replaced, in order: for text that is kept, not refused (1.x history rows).
    Finds of the kinds in ``spare`` are left as they are."""
    found = [secret for secret in find_secrets(text) if secret.kind not in spare]
    if not found:
        return text, []
    pieces: list[str] = []
    end = 0
    for secret in found:
        pieces += [text[end : secret.start], f"[redacted {secret.kind}]"]
        end = secret.end
    pieces.append(text[end:])
    return "".join(pieces), [secret.kind for secret in found]


def check_agent(name: str) -> str:
    """``name`` ($CHITIN_AGENT), which goes into every commit's author, e-mail and
    trailer: one short line, holding no credential; else a ValidationError."""
    problem = None
    if len(name) > MAX_AGENT:
        problem = f"is {len(name):,} characters long (at most {MAX_AGENT})"
    elif any(unicodedata.category(ch) == "Cs" for ch in name):
        # bytes not UTF-8 read from the environment (\udcff for \xff): git can't carry them
        problem = "is not valid UTF-8"
    elif any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        problem = "holds a control or invisible character (a line break, a zero-width space …)"
    else:
        found = find_secrets(name)
        if found:
            problem = f"looks like it holds {article(found[0].kind)} {found[0].kind}"
    if problem is not None:
        raise ValidationError(
            "agent",
            f"$CHITIN_AGENT {problem}; it names the author of every commit, so it must be a "
            f"short name such as my-agent (1 to {MAX_AGENT} characters, no credentials)",
        )
    return name


# How a refusal says to write it anyway: the library's argument (render.failures says it
# as the CLI's flag, which the MCP tools say as their parameter); import-carapace rewords.
ALLOW_ANYWAY = "(use allow_secret=True if it is not one)"


def refusal(field: str, kind: str) -> str:
    """What a write that would commit a credential says (the secret is not repeated)."""
    return (
        f"{field} looks like it holds {article(kind)} {kind}; an insight must not contain "
        f"credentials {ALLOW_ANYWAY}"
    )


def article(kind: str) -> str:
    return "an" if kind[:1].lower() in "aeio" or kind.startswith(("npm", "xAI")) else "a"
