"""The session start's own parser: the plain command lines of the reading commands the
hosts' session starts and a person run most, without loading click.

click, and what it loads of the standard library (inspect, ast, dis, uuid, …), is
~12 ms of a ~50-80 ms `get`, `stats`, `list` or `retrieve` process (docs/design.md
§9f, round 5). This parser knows those four, `render` (OpenClaw's session start) and
`hooks run claude-code session-start` (Claude Code's), in their ordinary form only:
each option at most once, as ``--name value`` or ``--name=value``, with a value that is
plainly valid, and the global ``--store``/``--debug`` before or after the command. For
anything else (``--help``, an option it does not know, a number out of range, a value
that begins with a dash) ``attempt`` returns None and the click group runs the command
line, which accepts or refuses it exactly as it always has. Both run the same function
with the same values (cli/show.py, cli/recall.py, cli/session_hook.py), and
tests/test_lean.py holds each table below to the click command it stands for.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from chitin.cli.context import Settings
from chitin.cli.outcome import conclude
from chitin.model.bounds import MAX_BUDGET, MAX_COUNT

TEXT = "text"  # any value
FLAG = "flag"  # no value: True when given
CLICKS = "clicks"  # an option whose value click checks (a path): given, the line is click's
NAMED = "named"  # a text that names something (cli/options.Named): empty, click's to refuse
FRACTION = "fraction"  # a plain decimal from 0 to 1 (cli/bounds.FRACTION): else click's
REQUIRED = object()  # the default of an option the command cannot run without
# TEXT, FLAG, CLICKS, NAMED, FRACTION, the allowed choices, or the allowed numbers.
Kind = str | tuple[str, ...] | range


class Option(NamedTuple):
    name: str  # the parameter of the command's function
    kind: Kind
    default: object


class Lean(NamedTuple):
    arguments: tuple[Option, ...]  # positional parameters, in order (all required)
    options: Mapping[str, Option]
    function: tuple[str, str]  # module, function: called with the settings and the values


_FORMAT = Option("fmt", ("human", "json"), "human")
_TYPES = Option("types", NAMED, None)
_TAGS = Option("tags", NAMED, None)  # empty, it is click's usage error, not no filter
_FLOOR = Option("min_confidence", FRACTION, None)
_BUDGET = Option("budget", range(1, MAX_BUDGET + 1), 2000)
_MAX_RESULTS = Option("max_results", range(1, MAX_COUNT + 1), 15)

COMMANDS: Mapping[str, Lean] = {
    "get": Lean(
        (Option("insight_id", TEXT, REQUIRED),),
        {"--format": _FORMAT},
        ("chitin.cli.show", "show_insight"),
    ),
    "stats": Lean((), {"--format": _FORMAT}, ("chitin.cli.show", "show_stats")),
    "list": Lean(
        (),
        {
            "--type": _TYPES,
            "--tags": _TAGS,
            "--provenance": Option("provenance", NAMED, None),
            "--min-confidence": _FLOOR,
            "--archived": Option("archived", FLAG, False),
            "--format": _FORMAT,
        },
        ("chitin.cli.show", "show_list"),
    ),
    "retrieve": Lean(
        (),
        {
            "--query": Option("query", TEXT, REQUIRED),
            "--budget": _BUDGET,
            "--max-results": _MAX_RESULTS,
            "--type": _TYPES,
            "--tags": _TAGS,
            "--min-confidence": _FLOOR,
            "--format": Option("fmt", ("compact", "full", "json", "markdown"), "compact"),
            "--explain": Option("explain", FLAG, False),
        },
        ("chitin.cli.recall", "recall"),
    ),
    # OpenClaw's session start: `render --query Q --budget B --session KEY`
    "render": Lean(
        (),
        {
            "--query": Option("query", TEXT, ""),
            "--budget": _BUDGET,
            "--max-results": _MAX_RESULTS,
            "--type": _TYPES,
            "--tags": _TAGS,
            "--min-confidence": _FLOOR,
            "--template": Option("template", CLICKS, None),
            "--output": Option("output", CLICKS, None),
            "--session": Option("session", TEXT, None),
        },
        ("chitin.cli.recall", "render_for"),
    ),
    # Claude Code's session start: `hooks run claude-code session-start`
    "hooks run": Lean(
        (
            Option("host", ("claude-code",), REQUIRED),
            Option("event", ("session-start", "reflect"), REQUIRED),
        ),
        {},
        ("chitin.cli.session_hook", "run_hook"),
    ),
}
# The words that begin a command of more than one ("hooks" of "hooks run").
_FIRST_WORDS = frozenset(name.split()[0] for name in COMMANDS if " " in name)


class Parsed(NamedTuple):
    command: Lean
    values: dict[str, object]
    store: str | None
    debug: bool


def attempt(argv: Sequence[str]) -> int | None:
    """Run ``chitin <argv>`` and return its exit code, or None: click's to run."""
    parsed = parse(argv)
    if parsed is None:
        return None

    def run() -> None:
        settings = Settings.from_environment(parsed.store, parsed.debug)
        module, function = parsed.command.function
        getattr(importlib.import_module(module), function)(settings, **parsed.values)

    return conclude(run, argv, process_ends=True)


def parse(argv: Sequence[str]) -> Parsed | None:
    """The command and its values, when ``argv`` is a form this parser is sure of."""
    words = list(argv)
    found = _Line()
    while words:
        if not found.take(words.pop(0), words):
            return None
    if found.command is None or len(found.positional) != len(found.command.arguments):
        return None
    values: dict[str, object] = {}
    for argument, word in zip(found.command.arguments, found.positional, strict=True):
        values[argument.name] = _converted(argument.kind, word)
        if values[argument.name] is None:
            return None
    for flag, option in found.command.options.items():
        value = found.values.get(flag, option.default)
        if value is REQUIRED:
            return None
        values[option.name] = value
    return Parsed(found.command, values, found.store, found.debug)


class _Line:
    """What the words read so far say: the command, its values, the global options."""

    def __init__(self) -> None:
        self.command: Lean | None = None
        self.words: list[str] = []  # the command's words read so far
        self.values: dict[str, object] = {}
        self.positional: list[str] = []
        self.store: str | None = None
        self.debug = False

    def take(self, word: str, rest: list[str]) -> bool:
        """Read one word (and its value from ``rest``); False where unsure."""
        flag, equals, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        if flag == "--debug" and not equals and not self.debug:
            self.debug = True
            return True
        if flag == "--store" and self.store is None:
            self.store = _value(equals, inline, rest)
            return bool(self.store)
        if self.command is None:
            self.words.append(word)
            self.command = COMMANDS.get(" ".join(self.words))
            return self.command is not None or (len(self.words) == 1 and word in _FIRST_WORDS)
        if not word.startswith("-"):
            self.positional.append(word)
            return True
        option = self.command.options.get(flag)
        if option is None or flag in self.values or option.kind == CLICKS:
            return False
        if option.kind == FLAG:
            self.values[flag] = True
            return not equals
        value = _converted(option.kind, _value(equals, inline, rest))
        self.values[flag] = value
        return value is not None


def _value(equals: str, inline: str, rest: list[str]) -> str | None:
    """An option's value: after its "=", else the next word unless that is a flag."""
    if equals:
        return inline
    if rest and not rest[0].startswith("-"):
        return rest.pop(0)
    return None


def _converted(kind: Kind, value: str | None) -> object:
    """The value as the command takes it, or None where click should judge it."""
    if value is None or kind == CLICKS:
        return None
    if kind == TEXT:
        return value
    if kind == NAMED:
        return value if value.replace(",", " ").strip() else None
    if kind == FRACTION:  # what else check_confidence takes, click judges and says
        plain = value.strip().removeprefix("+")
        decimal = plain.isascii() and plain.replace(".", "", 1).isdigit()
        return value if decimal and float(plain) <= 1 else None
    if isinstance(kind, range):
        number = int(value) if value.isascii() and value.isdigit() else None
        return number if number in kind else None
    return value if value in kind else None
