"""What a value next to a credential's name, or alone, looks like: made up by a person
or a generator (a secret), or a placeholder, a word, a reference (not one).
secrets.py's rules call these on what they match.
"""

from __future__ import annotations

import binascii  # built in: nothing to load
import re


def random_looking(value: str, minimum: int) -> bool:
    """Long enough and mixing letters with digits: a generated value, not a word."""
    return (
        len(value) >= minimum
        and any(ch.isdigit() for ch in value)
        and any(ch.isalpha() for ch in value)
    )


_PLACEHOLDER = re.compile(
    r"""^(?:
        [$%<{\[(*/~.]                  # $VAR, <password>, {{secret}}, ***, /run/secrets/db …
      | .*(?:\$\{|\{\{|://)               # ${VAR} or {{var}} inside, or a URL (where it lives)
      | (.)\1*$                        # xxxxxxxx, 00000000
      | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$  # YOUR_API_KEY: the name of an environment variable
      | \d{4}-\d{2}-\d{2}               # a date or a time
      | (?i:your|my|example|sample|dummy|fake|placeholder|redacted|changeme|xxx|test|none|null)
        [\w.-]*$
    )""",
    re.VERBOSE,
)
# os.environ["API_KEY"], settings.API_KEY, get_token(): code saying where a secret is.
_CODE_REFERENCE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$|[(\[]")


def is_placeholder(value: str) -> bool:
    """``$TOKEN``, ``<password>``, ``********``, ``YOUR_KEY``, ``os.environ[…]`` …"""
    return bool(_PLACEHOLDER.match(value) or _CODE_REFERENCE.search(value))


def character_classes(value: str) -> int:
    return sum(
        (
            any(ch.islower() for ch in value),
            any(ch.isupper() for ch in value),
            any(ch.isdigit() for ch in value),
            any(not ch.isalnum() for ch in value),
        )
    )


def assigned_value(value: str, quoted: bool) -> bool:
    """``password = "…"`` counts when the value is not trivial: long enough, of at
    least two kinds of character one of them digits, or three kinds (so "password:
    required", "token: 4096" and "tokens: short-lived" pass),
    and not a placeholder or a reference to where the secret really lives."""
    if len(value) < (6 if quoted else 8) or is_placeholder(value):
        return False
    # A digit, or three kinds of character: "short-lived" or "Bearer-only" stay prose.
    classes = character_classes(value)
    return classes >= 3 or (classes >= 2 and any(ch.isdigit() for ch in value))


# A value that starts with a lower-case name and "=" is a list of settings, not the
# secret itself: docker's `--secret id=NAME,src=FILE` says where a secret is.
_SETTINGS = re.compile(r"^[a-z][a-z_-]*=")


def option_value(value: str, quoted: bool) -> bool:
    """``--password VALUE`` counts as ``password = VALUE`` does (``assigned_value``),
    unless the value is settings (``id=AWS_CREDS``)."""
    return not _SETTINGS.match(value) and assigned_value(value, quoted)


def said_value(value: str, quoted: bool) -> bool:
    """``the db password is hunter2secret``: said in a sentence, where "is" is followed
    by prose far more often than ``=`` is ("the token is short-lived", "the password
    is required"), so the value must look made up: letters and digits mixed, 8
    characters at least, no hyphen (base64-encoded, sha256-hashed, utf-8) and not a
    placeholder. A value in lower case passes this as well as a mixed one."""
    if not quoted:
        value = value.rstrip(".!?:)")
    return random_looking(value, 8) and "-" not in value and not is_placeholder(value)


def passphrase(value: str) -> bool:
    """A quoted value with spaces after a secret's name: words a person chose, at least
    12 characters of three words or more, and not a placeholder (``"your password
    here"``, ``"$DB_PASSWORD from the vault"``, ``"{{ secret }}"``), nor a message
    that names a secret (``"Forgot your password?"``, ``"the token has expired"``), nor
    a rule of length (``"at least 12 characters"``)."""
    words = value.split()
    return (
        12 <= len(value.strip()) <= 200
        and len(words) >= 3
        and not (len(words[0]) > 1 and is_placeholder(words[0]))  # "a …" is no "xxx"
        and not is_placeholder(value.strip())
        and _SECRET_WORD.search(value) is None
        and _LENGTH_RULE.search(value) is None
    )


# A secret's name among a quoted value's words: a message about one, not one.
_SECRET_WORD = re.compile(r"(?i)passw(?:or)?d|secret|token|credential")
# A count of characters: the rule a password must follow (`MIN_PASSWORD = "at least 12
# characters"`), not a password.
_LENGTH_RULE = re.compile(r"(?i)\b\d+[ \t]*(?:characters?|chars?|letters|digits|symbols)\b")


_WORDS = re.compile(r"[a-z]{4,}")


def generated(value: str, digits: int = 1) -> bool:
    """A token as a key generator makes it (AWS's 40 characters: 1.5% of them fail
    this, prose almost never passes): both cases and ``digits`` digits, many different
    characters, and no words (not a path, a hex hash or an identifier)."""
    return (
        sum(ch.isdigit() for ch in value) >= digits
        and sum(ch.isupper() for ch in value) >= 3
        and sum(ch.islower() for ch in value) >= 3
        and len(set(value)) >= 20
        and len(_WORDS.findall(value)) < 3
    )


def basic_credentials(token: str) -> bool:
    """An HTTP Basic authorization's token: base64 that decodes to ``user:password``."""
    if len(token) % 4:
        return False
    try:
        text = binascii.a2b_base64(token, strict_mode=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, colon, password = text.partition(":")
    return bool(colon and user and password) and text.isprintable()
