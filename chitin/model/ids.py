"""Insight ids: short readable slugs, and the rule that keeps an id inside the store."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable

from chitin.errors import ValidationError

# An id becomes a file name, so it may hold no path separator and no "..".
# Imported ids (UUIDs from chitin 1.x, for example) fit this pattern too. Matched whole
# (fullmatch): with match and "$", an id ending in a newline passed and named a file.
_ID_MAX = 128
_ID_PATTERN = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{_ID_MAX - 1}}}")
_ID_CHARACTERS = re.compile(r"[A-Za-z0-9._-]+")
_SLUG_MAX = 32
# Letters NFKD does not take apart into an ASCII letter and marks, which the ASCII fold
# would drop ("Straße" gave "strae"): their usual transliterations, capitals included.
_TRANSLITERATED = str.maketrans(
    {
        "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o",
        "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D",
        "þ": "th", "Þ": "TH", "ı": "i",
    }
)  # fmt: skip
_SUFFIX_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l look-alikes
_SUFFIX_LENGTH = 4
# Names an id may not take. README.md is a folder's description, never an insight (the
# walk skips it), so an insight of that id would vanish. Windows reserves its device
# names whatever the extension (con.md is the console), so a clone there would break.
README = "readme"
WINDOWS_DEVICES = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{port}{n}" for port in ("com", "lpt") for n in range(10)]
)


def check_id(value: object) -> str:
    """An id chitin may write: a safe file name, and not a reserved one."""
    check_reference(value)
    assert isinstance(value, str)
    if is_reserved(value):
        raise ValidationError(
            "id",
            f"invalid id {value!r}: README and the Windows device names "
            "(CON, PRN, AUX, NUL, COM0-9, LPT0-9) are reserved file names",
        )
    return value


def check_reference(value: object) -> str:
    """An id or the prefix of one, as a command names it: a safe file name (a prefix
    such as ``con`` may be a reserved name and still name ``connect-…``)."""
    if not isinstance(value, str) or not _ID_PATTERN.fullmatch(value) or ".." in value:
        raise ValidationError("id", f"invalid id {_shown(value)}: {_id_problem(value)}")
    return value


def _id_problem(value: object) -> str:
    """What is wrong with an id the pattern refused, and what is allowed: "use letters,
    digits, '-' …" alone read as wrong for '-dash' or for a 200-letter id."""
    allowed = "use letters, digits, '-', '_' and '.', no path separators and no '..'"
    if not isinstance(value, str) or ".." in value or not _ID_CHARACTERS.fullmatch(value):
        return allowed
    if not value[0].isalnum():
        return f"start it with a letter or digit ({allowed})"
    return f"at most {_ID_MAX} characters, got {len(value)} ({allowed})"


def _shown(value: object) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "(a number)"
    return text if len(text) <= 80 else text[:77] + "…"


def is_reserved(insight_id: str) -> bool:
    lowered = insight_id.lower()
    return lowered == README or lowered.split(".", 1)[0] in WINDOWS_DEVICES


def slugify(text: str) -> str:
    """The first words of a claim, lower-case ASCII joined by hyphens, ≤ 32 characters."""
    text = text.replace("'", "").replace("’", "")  # "don't" → "dont", not "don-t"
    text = text.translate(_TRANSLITERATED)
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > _SLUG_MAX:
            break
        slug = candidate
    slug = slug or (words[0][:_SLUG_MAX] if words else "insight")
    return f"{slug}-insight" if is_reserved(slug) else slug


def new_id(claim: str, taken: Callable[[str], bool], token: Callable[[], str] | None = None) -> str:
    """A fresh id such as ``tdd-red-green-refactor-k3f9``, retried until ``taken`` says no."""
    make_token = token or _random_token
    slug = slugify(claim)
    for _ in range(100):
        candidate = f"{slug}-{make_token()}"
        if not taken(candidate):
            return candidate
    raise ValidationError("id", "could not find a free id; the store is unexpectedly crowded")


def _random_token() -> str:
    return random_text(_SUFFIX_ALPHABET, _SUFFIX_LENGTH)


def random_text(alphabet: str, length: int) -> str:
    """``length`` characters of ``alphabet``, unguessable (an id's suffix, an evidence
    token): the operating system's random bytes, as ``secrets`` draws them, without
    its import (base64, hmac, random, ~1.5 ms of every write's start). A byte at or
    above the largest multiple of the alphabet's size is drawn again, so that every
    character is equally likely."""
    size = len(alphabet)
    if not 0 < size <= 256:
        raise ValueError(f"an alphabet of 1 to 256 characters, not {size}")
    fair = 256 - 256 % size  # bytes below it map evenly onto the alphabet
    drawn: list[str] = []
    while len(drawn) < length:
        drawn.extend(alphabet[byte % size] for byte in os.urandom(length * 2) if byte < fair)
    return "".join(drawn[:length])


def shard_folder(insight_id: str) -> str:
    """The folder of ``insight_id`` in the sharded layout (``shard: true``): the first
    byte of its SHA-1, so 256 folders share the files evenly."""
    import hashlib

    return hashlib.sha1(insight_id.encode()).hexdigest()[:2]
