"""Likely credentials in text: what must never reach an insight, and so a commit.

Insights are committed to git and often pushed, and a secret in git history stays
there even after the file is fixed. So writes refuse text that holds one, and
``chitin check`` reports any found in the files.

The rules aim at few false alarms. Token formats with a fixed prefix (``ghp_``,
``AKIA``, ``xoxb-`` …) are matched as they are issued. Generic forms (``Bearer …``,
``password = …``) need a value that looks random and is not a placeholder, so prose
about passwords, API keys or tokens passes. A finding names the kind of secret and
where it is, never the secret itself: messages end up in terminals and CI logs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import NamedTuple

from chitin.errors import ValidationError
from chitin.model.bounds import MAX_AGENT
from chitin.model.fields import GUARDED
from chitin.model.insight import Insight
from chitin.model.invisible import IGNORABLE
from chitin.model.secret_values import (
    assigned_value,
    basic_credentials,
    character_classes,
    generated,
    is_placeholder,
    option_value,
    random_looking,
    said_value,
)


class Secret(NamedTuple):
    """A likely credential: what kind, and where in the text (start, end)."""

    kind: str
    start: int
    end: int


class _Rule(NamedTuple):
    kind: str
    # Literal pieces, one of which every match holds: a cheap test (``in``) that spares
    # most texts the regular expression. ``fold``: look for them in lower case.
    needles: tuple[str, ...]
    fold: bool
    # Compiled at its first use (re's cache keeps it): most texts hold none of the
    # needles, and compiling every rule cost each write's start ~2 ms.
    pattern: str
    # Called with the match; False means "not a secret after all" (a placeholder …).
    accept: Callable[[re.Match[str]], bool]
    # The shortest text a match fits in: for rules without needles, a cheap test that
    # spares the many short texts (a claim, a tag) the regular expression.
    shortest: int = 0


def _always(_: re.Match[str]) -> bool:
    return True


# Token characters; a secret ends where they end (no \b, since '-' and '_' are in it).
_END = r"(?![A-Za-z0-9_-])"


def _group_random(group: int | str, minimum: int) -> Callable[[re.Match[str]], bool]:
    return lambda match: random_looking(match.group(group), minimum)


def _assigned_secret(match: re.Match[str]) -> bool:
    """``password = "…"``, or said: ``the db password is …`` (secret_values.py)."""
    judge = said_value if match.group("said") is not None else assigned_value
    return judge(match.group("value"), bool(match.group("quote")))


def _user_password(match: re.Match[str]) -> bool:
    """``-u user:password``: one of three kinds of character at least, not a path, not
    the user again (``-u app:staff2``, ``-u 1000:1000`` and ``-u root:root`` pass)."""
    value, user = match.group("value"), match.group("user")
    return (
        len(value) >= 8
        and character_classes(value) >= 3
        and "/" not in value
        and (value != user and not is_placeholder(value))
    )


def _url_password(match: re.Match[str]) -> bool:
    password = match.group("password")
    return not is_placeholder(password) and password != match.group("user")


_KEY_NAME = (
    r"[A-Za-z0-9_.-]*"
    r"(?:password|passwd|passphrase|pwd|pw|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|auth[_-]?key|credentials?)"
    r"[A-Za-z0-9_.-]*"
)
# A secret's name as a command line's option ends with it (no pw: `--pw` is rare, and
# a short option like `-p` names nothing).
_FLAG_NAME = (
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|auth[_-]?key|credentials?)"
)
# What a sentence may put between the name and its "is": "the password for prod is …".
_NAMED_FOR = r"(?: [ \t]+ (?:for|to|of|on|at) [ \t]+ (?:the [ \t]+)? [A-Za-z0-9_.-]+ )?"


def _rule(
    kind: str,
    needles: str,
    pattern: str,
    accept: Callable[[re.Match[str]], bool] = _always,
    fold: bool = False,
    shortest: int = 0,
) -> _Rule:
    return _Rule(kind, tuple(needles.split()), fold, pattern, accept, shortest)


# Rules for formats with a fixed prefix come first: when finds overlap, the earlier
# rule names the secret ("OpenAI-style API key" rather than "password or secret").
RULES: tuple[_Rule, ...] = (
    _rule(
        "private key", "PRIVATE", r"-----(?:BEGIN|END) (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    ),
    # The body of a PEM key without its BEGIN line: the DER start ("MII…") of a key,
    # or lines of exactly 64 base64 characters, two or more in a row.
    _rule("PEM key body", "MII", r"\bMII[A-Za-z0-9+/]{61,}={0,2}"),
    _rule(
        "PEM key body",
        "",
        r"(?m)(?:^[ \t>]*[A-Za-z0-9+/]{64}[ \t]*\n){2}",
        shortest=129,
    ),
    _rule(
        "AWS access key", "AKIA ASIA ABIA ACCA", rf"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{{16}}{_END}"
    ),
    _rule(
        "GitHub token",
        "ghp_ gho_ ghu_ ghs_ ghr_ github_pat_",
        rf"\b(?:gh[pousr]_[A-Za-z0-9]{{30,}}|github_pat_[A-Za-z0-9_]{{30,}}){_END}",
    ),
    _rule(
        "AWS secret access key",
        "",
        r"(?<![A-Za-z0-9/+=])(?P<key>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        lambda match: generated(match.group("key")),
        shortest=40,
    ),
    _rule("GitLab token", "glpat-", rf"\bglpat-[A-Za-z0-9_-]{{20,}}{_END}"),
    _rule("Slack token", "xox", rf"\bxox[abposr]-[A-Za-z0-9-]{{10,}}{_END}", _group_random(0, 15)),
    _rule(
        "Slack webhook URL",
        "hooks.slack.com",
        r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+",
    ),
    _rule(
        "Anthropic API key",
        "sk-ant-",
        rf"\bsk-ant-[A-Za-z0-9_-]{{20,}}{_END}",
        _group_random(0, 27),
    ),
    _rule(
        "OpenAI-style API key",
        "sk-",
        rf"\bsk-(?!ant-)(?P<key>[A-Za-z0-9_-]{{20,}}){_END}",
        _group_random("key", 20),
    ),
    _rule("Stripe key", "k_live_ k_test_", rf"\b[sr]k_(?:live|test)_[A-Za-z0-9]{{16,}}{_END}"),
    _rule("Google API key", "AIza", rf"\bAIza[A-Za-z0-9_-]{{35}}{_END}"),
    _rule("Hugging Face token", "hf_", rf"\bhf_[A-Za-z0-9]{{30,}}{_END}"),
    _rule("npm token", "npm_", rf"\bnpm_[A-Za-z0-9]{{36}}{_END}"),
    _rule("PyPI token", "pypi-", rf"\bpypi-AgE[A-Za-z0-9_-]{{50,}}{_END}"),
    # SendGrid's documented shape: "SG.", a 22-character id, ".", a 43-character secret.
    _rule("SendGrid API key", "SG.", rf"\bSG\.[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9_-]{{43}}{_END}"),
    _rule(
        "JSON Web Token",
        "eyJ",
        rf"\beyJ[A-Za-z0-9_-]{{10,}}\.eyJ[A-Za-z0-9_-]{{10,}}\.[A-Za-z0-9_-]{{10,}}{_END}",
    ),
    _rule(
        "bearer token",
        "Bearer",
        r"\bBearer[ \t]+(?P<token>[A-Za-z0-9._~+/-]{16,}=*)(?![A-Za-z0-9._~+/=-])",
        _group_random("token", 16),
    ),
    # HTTP's Basic authorization (base64 of "user:password"), and curl's -u user:pass.
    _rule(
        "password or secret",
        "Basic",
        r"\bBasic[ \t]+(?P<token>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
        lambda match: basic_credentials(match.group("token")),
    ),
    _rule(
        "password or secret",
        "-u --user",
        r"""(?<!\S)(?:-u|--user)[ \t]+(?P<quote>["']?)(?P<user>[^\s:"']+):"""
        r"""(?P<value>[^\s"']+)(?P=quote)""",
        _user_password,
    ),
    _rule(
        "password in a URL",
        "://",
        r"\b[A-Za-z][A-Za-z0-9+.-]*://(?P<user>[^\s:/?#@]+):(?P<password>[^\s/?#@]+)@[^\s/?#]+",
        _url_password,
    ),
    _rule(
        "password or secret",
        "pass pw secret token key credential",
        rf"""(?ix)
        (?<![A-Za-z0-9_.-]) ["']? {_KEY_NAME} ["']?
        (?: [ \t]* (?: := | => | = | : ) [ \t]*
          | (?P<said> {_NAMED_FOR} [ \t]+ (?:is|was) :? [ \t]+ ) )
        (?P<quote>["']?) (?P<value>[^\s"',;]+) (?P=quote)
        """,
        _assigned_secret,
        fold=True,
    ),
    # A command line's long option: `mysql --password Tz4w…`, `--api-key …`. The option
    # ends at the secret's name (`--token-limit 4096`, `--secret-name x` name no
    # secret), and the value is judged as an assigned one (`--password required`).
    _rule(
        "password or secret",
        "pass secret token key credential",
        rf"""(?ix)
        (?<![A-Za-z0-9_.-]) --[A-Za-z0-9_.-]*?{_FLAG_NAME} [ \t]+
        (?P<quote>["']?) (?P<value>[^\s"',;-][^\s"',;]*) (?P=quote)
        """,
        lambda match: option_value(match.group("value"), bool(match.group("quote"))),
        fold=True,
    ),
    # Last, for the shapes no rule above knows (a service's key pasted into a chat that
    # a digest quotes): a long run that reads as generated, not as words or a hash.
    _rule(
        "random-looking token",
        "",
        r"(?<![A-Za-z0-9_-])(?P<token>[A-Za-z0-9_-]{32,})(?![A-Za-z0-9_-])",
        # two digits: an identifier in CamelCase with one version digit stays code
        lambda match: generated(match.group("token"), digits=2),
        shortest=32,
    ),
)


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
            if rule.accept(match):
                yield Secret(rule.kind, match.start(), match.end())


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


def redacted(text: str) -> tuple[str, list[str]]:
    """``text`` with each likely credential replaced by ``[redacted <kind>]``, and the
    kinds replaced, in order: for text that is kept, not refused (1.x history rows)."""
    found = find_secrets(text)
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
    return "an" if kind[:1].lower() in "aeio" or kind.startswith("npm") else "a"
