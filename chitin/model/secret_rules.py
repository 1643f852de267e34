"""The credential detector's rules: one per kind of secret, its pattern, and what a
match must look like to count (secret_values.py judges the values). secrets.py runs
them over a text and masks or refuses what they find.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from chitin.model.secret_values import (
    assigned_value,
    basic_credentials,
    character_classes,
    generated,
    is_placeholder,
    option_value,
    passphrase,
    random_looking,
    said_value,
)


class Rule(NamedTuple):
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
    """``password = "…"``, or said: ``the db password is …`` (secret_values.py). A
    value that ends in a colon is a key (``tokens:`` above ``gpt4o-mini: 128000``)."""
    if not match.group("quote") and match.group("value").endswith(":"):
        return False
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


def _quoted_passphrase(match: re.Match[str]) -> bool:
    """``DB_PASSWORD='a passphrase with spaces'``; after a colon, a variable's name only
    (with ``_``, or in capitals)."""
    name = match.group("name")
    if match.group("sep") == ":" and "_" not in name and not name.isupper():
        return False
    value = match.group("value")
    return (" " in value or "\t" in value) and passphrase(value)


def _url_password(match: re.Match[str]) -> bool:
    password = match.group("password")
    return not is_placeholder(password) and password != match.group("user")


# A name holding a secret's word anywhere: the word found once by a lookahead, then
# the whole run taken at once, never given back (nothing after a name is a name's
# character). Backtracking through every "token" of a long run ("API_TOKEN_" * 10,000)
# was quadratic: 100 KB took 75 s.
_KEY_NAME = (
    r"(?=[A-Za-z0-9_.-]*?"
    r"(?:password|passwd|passphrase|pwd|pw|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|auth[_-]?key|credentials?))"
    r"[A-Za-z0-9_.-]*+"
)
# A secret's name as a command line's option ends with it (no pw: `--pw` is rare, and
# a short option like `-p` names nothing).
_FLAG_NAME = (
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|auth[_-]?key|credentials?)"
)
# What names a passphrase, a secret a person may choose in words: not a token or a key,
# which a generator makes without spaces (`error_token = "unexpected end of input"`).
_PASSPHRASE_NAME = r"(?:password|passwd|passphrase|secret|credentials?)"
# A value may start on the next line: "the password is:", "password:", then the value.
# After "is", a colon or white space comes first ("the password issue#4521" says none).
_NEXT_LINE = r"(?: [ \t]* \r?\n )? [ \t]*"
# What a sentence may put between the name and its "is": "the password for prod is …".
_NAMED_FOR = r"(?: [ \t]+ (?:for|to|of|on|at) [ \t]+ (?:the [ \t]+)? [A-Za-z0-9_.-]+ )?"


def _rule(
    kind: str,
    needles: str,
    pattern: str,
    accept: Callable[[re.Match[str]], bool] = _always,
    fold: bool = False,
    shortest: int = 0,
) -> Rule:
    return Rule(kind, tuple(needles.split()), fold, pattern, accept, shortest)


# The last rule's kind: a long run that reads as generated. A host's session id may
# well be one, so a session's name is checked against the named kinds only.
RANDOM_TOKEN = "random-looking token"

# Rules for formats with a fixed prefix come first: when finds overlap, the earlier
# rule names the secret ("OpenAI-style API key" rather than "password or secret").
RULES: tuple[Rule, ...] = (
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
        "xAI API key", "xai-", rf"\bxai-(?P<key>[A-Za-z0-9]{{40,}}){_END}", _group_random("key", 40)
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
        (?: [ \t]* (?: := | => | = ) [ \t]*
          | [ \t]* : {_NEXT_LINE}
          | (?P<said> {_NAMED_FOR} [ \t]+ (?:is|was) (?: : | (?=\s) ) {_NEXT_LINE} ) )
        (?P<quote>["']?) (?P<value>[^\s"',;]+) (?P=quote)
        """,
        _assigned_secret,
        fold=True,
    ),
    # A quoted value with spaces after a variable named for a secret: a passphrase
    # (`DB_PASSWORD='a passphrase with spaces'`). The name ends at the secret's word
    # (`PASSWORD_HINT="ask the admin"` names none); after a colon (YAML, JSON) only a
    # variable's name counts (`API_SECRET: "…"`), not a word (`password: "…"`).
    _rule(
        "password or secret",
        "pass secret credential",
        rf"""(?ix)
        (?<![A-Za-z0-9_.-]) ["']? (?P<name> [A-Za-z0-9_.-]*?{_PASSPHRASE_NAME} ) ["']?
        [ \t]* (?P<sep> := | = | : ) [ \t]*
        (?P<quote>["']) (?P<value> [^"'\n]{{12,200}} ) (?P=quote)
        """,
        _quoted_passphrase,
        fold=True,
    ),
    # mysql's password glued to its -p (`mysql -u root -pTz4w…`, `-p'…'`), in a MySQL
    # client's command line only (`mkdir -p`, `gcc -pthread` name no secret), its name
    # in any case (`MySQL -p…`) but -p in lower case (-P is the port); the value
    # is judged as an assigned one (`-p$MYSQL_PWD` passes), and only `-p…` is masked.
    _rule(
        "password or secret",
        "mysql mariadb",
        r"""(?x)
        \b (?i: (?:mysql|mariadb) [a-z-]{0,24} ) (?: [ \t]+ [^\s|;&]+ ){0,24}? [ \t]+
        (?P<secret> -p (?P<quote>["']?) (?P<value>[^\s"']+) (?P=quote) ) (?![^\s|;&])
        """,
        lambda match: assigned_value(match.group("value"), bool(match.group("quote"))),
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
        RANDOM_TOKEN,
        "",
        r"(?<![A-Za-z0-9_-])(?P<token>[A-Za-z0-9_-]{32,})(?![A-Za-z0-9_-])",
        # two digits: an identifier in CamelCase with one version digit stays code
        lambda match: generated(match.group("token"), digits=2),
        shortest=32,
    ),
)
