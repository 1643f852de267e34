"""chitin.yaml's settings, checked in one place.

Each setting is read where it is used: the scoring tables in ``retrieval.scoring``, the
embedding provider in ``search.semantic``, Carapace in ``core.carapace``, the file
layout in ``store.repository``. Each reader refuses what it cannot use, and this
module asks every one of them about its own section, so that ``chitin check`` refuses
exactly what a command would. Two readers take any value and read a wrong one as
"off" (``shard``, ``embedding.background``): their rule is here. Settings nobody reads
(a misspelt name) are named too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from chitin.core.carapace_settings import sharing_of
from chitin.errors import ChitinError, StoreError, ValidationError
from chitin.format import lint
from chitin.format.lint import Finding
from chitin.retrieval.scoring import Settings
from chitin.search import semantic
from chitin.store.config import CONFIG_FILE

PREFIX = f"{CONFIG_FILE}: "
EMBEDDING_KEYS = ("provider", "model", "background")


class Problem(NamedTuple):
    setting: str  # the top-level name
    message: str  # without the file's name
    severe: bool  # an error (a reader refuses it), else a warning (nobody reads it)


def problems(config: Mapping[str, Any]) -> list[Problem]:
    """What is wrong with ``config`` (a parsed chitin.yaml), setting by setting, in the
    order of ``SETTINGS``; then the settings nobody reads."""
    found = []
    for name, check in SETTINGS.items():
        if name not in config:
            continue
        try:
            unread = check({name: config[name]})
        except ChitinError as error:
            found.append(Problem(name, _without_name(name, str(error)), True))
        else:
            found += [Problem(name, message, False) for message in unread]
    found += [
        Problem(str(name), f"is not a setting chitin reads (allowed: {', '.join(SETTINGS)})", False)
        for name in config
        if name not in SETTINGS
    ]
    return found


def findings(root: Path, parse: Callable[[Path], Mapping[str, Any]]) -> list[Finding]:
    """What is wrong with the chitin.yaml in ``root``, as ``chitin check`` says it: an
    error for what does not parse (``parse`` raises a StoreError) or what a setting's
    reader refuses, a warning for a setting nobody reads. A write refuses the errors."""

    name = CONFIG_FILE
    if not (root / name).exists():
        return []
    try:
        config = parse(root / name)
    except StoreError as error:
        message, _, fix = str(error).removeprefix(f"{name} ").partition("; fix: ")
        fix = fix or "correct the YAML"  # conflict markers say their own fix
        return [Finding(name, "file", message, fix, lint.ERROR, "parse")]
    return [
        Finding(
            name,
            problem.setting,
            problem.message,
            "correct the value, or remove the setting to have its default"
            if problem.severe
            else "correct the name, or remove it",
            lint.ERROR if problem.severe else lint.WARNING,
            "invalid" if problem.severe else "unknown-setting",
        )
        for problem in problems(config)
    ]


# Each check raises a ChitinError for what its reader refuses, and returns what its
# reader ignores (a misspelt key): the one is an error, the other a warning.


def _scoring(config: Mapping[str, Any]) -> list[str]:

    Settings.from_config(config)  # it refuses unknown names itself
    return []


def _embedding(config: Mapping[str, Any]) -> list[str]:

    semantic.choice(config)
    section = config["embedding"] or {}
    if not isinstance(section.get("background", False), bool):
        raise ValidationError(
            "embedding",
            f"embedding.background must be true or false, got {section['background']!r}",
        )
    allowed = ", ".join(EMBEDDING_KEYS)
    return [
        f"{key} is not a setting chitin reads (allowed: {allowed})"
        for key in section
        if key not in EMBEDDING_KEYS
    ]


def _carapace(config: Mapping[str, Any]) -> list[str]:

    sharing_of(config, {})  # it refuses unknown keys itself
    return []


def _shard(config: Mapping[str, Any]) -> list[str]:

    if not isinstance(config["shard"], bool):
        raise ValidationError("shard", f"shard must be true or false, got {config['shard']!r}")
    return []


SETTINGS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "half_lives": _scoring,
    "type_boosts": _scoring,
    "relevance_weights": _scoring,
    "embedding": _embedding,
    "carapace": _carapace,
    "shard": _shard,
}


def _without_name(name: str, message: str) -> str:
    """A reader's message as a finding of setting ``name`` says it: without the file's
    name and the setting's, which the finding gives ("half_lives.social must be …"
    becomes "social must be …")."""
    message = message.removeprefix(PREFIX)
    for lead in (f"{name}.", f"{name}: ", f"{name} "):
        if message.startswith(lead):
            return message[len(lead) :]
    return message
