"""Which kind of situation a query describes, and how much each insight type matters there.

The keyword lists, weights and boost tables are the original's (reference §3.4). One
defect is fixed: keywords match whole words (with a plural or verb ending), not
substrings, so "task" no longer counts as "ask" nor "function" as "fun".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

CATEGORIES: tuple[str, ...] = ("coding", "communication", "ethical", "creative", "general")

KEYWORDS: dict[str, tuple[str, ...]] = {
    "coding": (
        "code",
        "function",
        "bug",
        "api",
        "build",
        "deploy",
        "test",
        "git",
        "commit",
        "push",
        "pull",
        "branch",
        "merge",
        "refactor",
        "debug",
        "typescript",
        "javascript",
        "python",
        "rust",
        "html",
        "css",
        "database",
        "sql",
        "server",
        "endpoint",
        "cli",
        "npm",
        "package",
        "compile",
        "error",
        "fix",
        "implement",
        "architect",
        "repo",
        "docker",
        "container",
        "netlify",
        "website",
        "tdd",
        "lint",
        "schema",
        "migration",
        "query",
        "install",
        "config",
    ),
    "communication": (
        "boss",
        "team",
        "respond",
        "reply",
        "message",
        "email",
        "slack",
        "tell",
        "ask",
        "explain",
        "communicate",
        "feedback",
        "meeting",
        "person",
        "people",
        "coworker",
        "colleague",
        "client",
        "user",
        "conversation",
        "discuss",
        "chat",
        "tone",
        "polite",
        "direct",
    ),
    "ethical": (
        "ethical",
        "moral",
        "right",
        "wrong",
        "honest",
        "honesty",
        "lie",
        "private",
        "privacy",
        "security",
        "trust",
        "principle",
        "value",
        "should",
        "fair",
        "integrity",
        "permission",
        "consent",
        "safe",
        "appropriate",
        "harmful",
        "responsible",
        "christian",
        "faith",
    ),
    "creative": (
        "story",
        "write",
        "creative",
        "fun",
        "humor",
        "joke",
        "poem",
        "imagine",
        "design",
        "art",
        "style",
        "voice",
        "personality",
        "dream",
        "philosophical",
        "reflect",
        "muse",
        "inspire",
    ),
}

CATEGORY_WEIGHTS: dict[str, float] = {
    "coding": 1.0,
    "communication": 1.0,
    "ethical": 1.2,
    "creative": 0.9,
}

TYPE_BOOSTS: dict[str, dict[str, float]] = {
    "coding": {
        "personality": 0.7,
        "relational": 0.8,
        "behavioral": 1.3,
        "principle": 1.0,
        "skill": 1.8,
        "trigger": 1.2,
    },
    "communication": {
        "personality": 1.2,
        "relational": 1.8,
        "behavioral": 1.5,
        "principle": 1.0,
        "skill": 0.6,
        "trigger": 1.4,
    },
    "ethical": {
        "personality": 1.0,
        "relational": 1.0,
        "behavioral": 1.2,
        "principle": 2.0,
        "skill": 0.5,
        "trigger": 1.0,
    },
    "creative": {
        "personality": 1.8,
        "relational": 1.0,
        "behavioral": 1.2,
        "principle": 0.8,
        "skill": 0.6,
        "trigger": 0.8,
    },
    "general": {
        "personality": 1.0,
        "relational": 1.0,
        "behavioral": 1.0,
        "principle": 1.0,
        "skill": 1.0,
        "trigger": 1.0,
    },
}

_WORD = re.compile(r"[a-z0-9]+")
_ENDINGS = ("", "s", "es", "ed", "d", "ing")


def _forms(words: set[str]) -> set[str]:
    """The words, and what they are with a plural or verb ending taken off: also a
    doubled last consonant ("debugging", "committed": "debug", "commit"), a y that
    became i ("stories", "replied": "story", "reply") and an ie that became y ("lying":
    "lie"), as 1.4.5's substring match found them."""
    found = set(words)
    for word in words:
        for ending in _ENDINGS[1:]:
            stem = word[: -len(ending)]
            if word.endswith(ending) and len(stem) >= 2:
                found.add(stem)
                if ending in ("ed", "ing") and len(stem) >= 4 and _doubled(stem):
                    found.add(stem[:-1])
        if word.endswith("ing") and len(word) > 5:
            found.add(word[:-3] + "e")  # "writing" → "write"
        if word.endswith(("ies", "ied")) and len(word) > 4:
            found.add(word[:-3] + "y")
        if word.endswith("ying") and len(word) > 5:
            found.add(word[:-4] + "ie")
    return found


def _doubled(stem: str) -> bool:
    return stem[-1] == stem[-2] and stem[-1] not in "aeiouslz"  # "pass", "fizz" stay


def detect_category(text: str) -> str:
    """The category whose keywords the text uses most (weighted); ties go to the earlier."""
    present = _forms(set(_WORD.findall(text.lower())))
    best, best_score = "general", 0.0
    for category, keywords in KEYWORDS.items():
        score = sum(1 for keyword in keywords if keyword in present) * CATEGORY_WEIGHTS[category]
        if score > best_score:
            best, best_score = category, score
    return best if best_score >= 1 else "general"


def type_boost(category: str, kind: str, table: Mapping[str, Mapping[str, float]]) -> float:
    return table.get(category, {}).get(kind, 1.0)
