"""The JSON contract, held still: every ``--format json`` shape against a golden file.

Agents parse what ``--format json`` prints (chitin 1.4.5's shapes, see
docs/compatibility.md). Each command below runs through the real CLI on one fixed
store, and its stdout is compared, byte for byte, with ``tests/golden/<name>.json``.
A change to a shape is then a visible diff of a golden file.

The store is fixed: the clock the CLI reads is frozen, git's dates and identity are
set, and the random suffixes of ids and evidence tokens come from a seeded generator.
What still varies between runs (the temporary folder, the Carapace test server's
address and the agent id it makes up) is replaced by a placeholder, and the cosines
the model gives are kept to four places: onnxruntime's builds and CPU kernels differ
in the last bit of a float32 (seen: 0.703582763671875 and, one ulp up, 0.70358282...).

To regenerate the golden files after an intended change of a shape:

    CHITIN_UPDATE_GOLDEN=1 pytest tests/test_json_contract.py

then read the diff (``git diff tests/golden``) before committing it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from carapace_server import CarapaceServer, ManualClock
from click.testing import CliRunner

from chitin.cli import cli
from chitin.model import evidence, ids

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("CHITIN_UPDATE_GOLDEN") == "1"
FROZEN = dt.datetime(2026, 3, 14, 9, 26, 53, tzinfo=dt.UTC)
GIT_DATE = "2026-03-14T09:26:53Z"


class _FrozenDatetime(dt.datetime):
    """``datetime`` whose ``now`` is always FROZEN (what the CLI reads as its clock)."""

    @classmethod
    def now(cls, tz: dt.tzinfo | None = None) -> Any:
        return FROZEN if tz is None else FROZEN.astimezone(tz)


def _freeze(monkeypatch: pytest.MonkeyPatch) -> None:
    """Freeze every clock a command reads, and every random choice it makes."""
    import importlib
    import pkgutil

    import chitin.cli

    for found in pkgutil.iter_modules(chitin.cli.__path__, "chitin.cli."):
        module = importlib.import_module(found.name)  # the commands load lazily
        if getattr(module, "datetime", None) is dt.datetime:
            monkeypatch.setattr(module, "datetime", _FrozenDatetime)
    seeded = random.Random(13)

    def drawn(alphabet: str, length: int) -> str:  # as secrets.choice drew them before
        return "".join(seeded.choice(alphabet) for _ in range(length))

    monkeypatch.setattr(ids, "random_text", drawn)  # ids' suffixes
    monkeypatch.setattr(evidence, "random_text", drawn)  # evidence tokens
    monkeypatch.setattr(socket, "gethostname", lambda: "golden-host")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_DATE", GIT_DATE)
        monkeypatch.setenv(f"GIT_{role}_NAME", "Golden")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "golden@chitin.invalid")
    monkeypatch.setenv("CHITIN_AGENT", "golden-agent")
    # The chitin these tests run is on the PATH, as in an activated venv, so that the
    # closing instructions of PERSONALITY.md name `chitin` whatever venv runs them.
    beside = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", beside + os.pathsep + os.environ.get("PATH", ""))


class Outputs:
    """Runs commands and keeps each JSON output under its golden name."""

    def __init__(self, tmp_path: Path, store: Path) -> None:
        self.tmp_path = tmp_path
        self.store = store
        self.texts: dict[str, str] = {}
        self.replacements: list[tuple[str, str]] = [(str(tmp_path), "<tmp>")]

    def run(
        self,
        name: str | None,
        *args: str,
        input: str | None = None,
        store: Path | None = None,
        expect: int = 0,
        cosines: bool = False,
    ) -> Any:
        """Run ``chitin --store STORE ARGS``; keep its stdout as ``name`` (if given) and
        return it parsed. With ``cosines``, its similarities come from the model, and are
        kept to four places."""
        result = CliRunner().invoke(cli, ["--store", str(store or self.store), *args], input=input)
        assert result.exit_code == expect, (
            f"{args}: exit {result.exit_code}\nstdout: {result.stdout}\n"
            f"stderr: {result.stderr}\n{result.exception!r}"
        )
        if name is not None:
            assert name not in self.texts, f"two outputs named {name}"
            self.texts[name] = _four_places(result.stdout) if cosines else result.stdout
        return json.loads(result.stdout) if result.stdout[:1] in ("{", "[") else None

    def normalised(self, text: str) -> str:
        for old, new in self.replacements:
            text = text.replace(old, new)
        return text


def _four_places(text: str) -> str:
    """``text`` with each ``"similarity": <float>`` rounded to four places."""
    return re.sub(
        r'("similarity": )(-?[0-9.]+(?:e-?[0-9]+)?)',
        lambda found: f"{found[1]}{round(float(found[2]), 4)}",
        text,
    )


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    ).stdout


def _build(out: Outputs, carapace: CarapaceServer, tmp_path: Path) -> None:
    """The fixed store, and one run of every command that prints JSON."""
    out.run("init", "init", "--format", "json")

    def contribute(name: str | None, *args: str) -> Any:
        return out.run(name, "contribute", *args, "--format", "json")

    tdd = contribute(
        "contribute",
        "--type", "skill", "--claim", "Write the failing test before the fix",
        "--confidence", "0.9", "--reasoning", "A test that fails first proves the fix",
        "--context", "Fixing bugs", "--limitations", "Exploratory spikes",
        "--tags", "testing,tdd", "--source", "the login bug", "--provenance", "directive",
    )["insight"]["id"]  # fmt: skip
    small = contribute(
        None,
        "--type", "principle", "--claim", "Keep functions small and named for what they do",
        "--confidence", "0.7", "--tags", "style", "--provenance", "observation",
    )["insight"]["id"]  # fmt: skip
    contribute(
        None,
        "--type", "trigger", "--condition", "a test fails", "--claim",
        "weakening the assertion", "--avoid", "--confidence", "0.85",
        "--provenance", "correction",
    )  # fmt: skip
    near = contribute(
        "contribute-with-matches",
        "--type", "skill", "--claim", "Avoid writing the failing test before the fix",
        "--confidence", "0.5", "--tags", "testing",
    )["insight"]["id"]  # fmt: skip
    out.run("get", "get", tdd, "--format", "json")
    out.run("update", "update", small, "--context", "Reviewing code", "--format", "json")
    out.run("reinforce", "reinforce", tdd, "--source", "the signup bug", "--format", "json")
    out.run("archive", "archive", small, "--format", "json")
    out.run("list-archived", "list", "--archived", "--format", "json")
    out.run("unarchive", "unarchive", small, "--format", "json")
    dup = contribute(
        None,
        "--type", "skill", "--claim", "Write a failing test before you fix anything",
        "--confidence", "0.6", "--tags", "bugs", "--force",
    )["insight"]["id"]  # fmt: skip
    out.run("dedupe", "dedupe", "--format", "json")
    out.run("merge", "merge", dup, tdd, "--format", "json")
    out.run("list", "list", "--format", "json")
    out.run("stats", "stats", "--format", "json")
    out.run("similar", "similar", "failing test before the fix", "--format", "json")
    out.run("embed", "embed", "--format", "json")
    out.run("embed-status", "embed-status", "--format", "json")
    out.run(
        "similar-semantic",
        "similar", "a test that fails first", "--semantic", "--format", "json",
        cosines=True,
    )  # fmt: skip
    out.run("retrieve", "retrieve", "--query", "fix the failing login test", "--format", "json")
    out.run(
        "retrieve-explain",
        "retrieve", "--query", "fix the failing login test", "--format", "json", "--explain",
    )  # fmt: skip
    out.run("history", "history", tdd, "--format", "json")
    out.run("changelog", "changelog", "--limit", "5", "--format", "json")
    out.run("diff", "diff", "HEAD~4", "--format", "json")
    out.run("diff-render", "diff", "HEAD~4", "--render", "--format", "json")
    out.run("quality", "quality", "--format", "json")
    out.run("quality-score", "quality:score", tdd, "--format", "json")
    out.run("check", "check", "--format", "json")
    out.run("where", "where", "--format", "json")

    reason = ("--session-key", "agent:main:golden:1", "--reason", "new")
    out.run("reflect-queue", "reflect", "--queue", *reason, "--format", "json")
    legacy = str(tmp_path / "no-legacy-queue.json")
    out.run("reflect", "reflect", "--pending-path", legacy, "--format", "json")
    out.run("reflect-clear", "reflect", "--clear", "--pending-path", legacy, "--format", "json")
    for host in ("claude-code", "openclaw-real"):
        _digest_of(out, host, legacy)

    hooks = str(tmp_path / "openclaw-hooks")
    Path(hooks).mkdir()
    out.run("hooks-install", "hooks", "install", "openclaw", "--dir", hooks, "--format", "json")
    out.run("hooks-uninstall", "hooks", "uninstall", "openclaw", "--dir", hooks, "--format", "json")
    session = json.dumps({"session_id": "golden", "cwd": str(tmp_path / "project")})
    start = ("hooks", "run", "claude-code", "session-start")
    out.run("hooks-run-session-start", *start, input=session)

    out.run("export", "export")
    exported = tmp_path / "export.json"
    out.run(None, "export", "--output", str(exported))
    other = tmp_path / "other-store"
    out.run(None, "init", store=other)
    out.run("import", "import", str(exported), "--format", "json", store=other)
    out.run("import-merge", "import", str(exported), "--merge", "--format", "json")

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    _git(out.store, "remote", "add", "origin", str(remote))
    out.run("sync", "sync", "--format", "json")

    out.replacements.append((carapace.url, "<carapace>"))
    registered = out.run(
        "carapace-register",
        "carapace-register", "--name", "Golden Bot", "--description", "tests", "--format", "json",
    )  # fmt: skip
    out.replacements.append((registered["id"], "<agent-id>"))
    out.run("promote", "promote", tdd, "--format", "json")
    out.run("carapace-query", "carapace-query", "failing test before the fix", "--format", "json")
    theirs = carapace.add_contribution(
        carapace.add_agent("Other Agent"), "Pin dependency versions in CI", 0.85,
        applicability="Python projects", reasoning="Unpinned builds broke twice",
        domain_tags=["ci"],
    )  # fmt: skip
    out.run("import-carapace", "import-carapace", theirs.id, "--format", "json")
    assert near  # contributed to show a conflict; kept in the store for the later shapes


@pytest.fixture
def golden_outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Outputs]:
    _freeze(monkeypatch)
    # A cache folder of its own: the local model is prepared during the run, as in
    # every run, whatever the tests before it left in the shared one (the prepared and
    # the shipped model differ in the seventh digit of a similarity).
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "machine-cache"))
    with CarapaceServer(clock=ManualClock()) as carapace:
        monkeypatch.setenv("CARAPACE_URL", carapace.url)
        out = Outputs(tmp_path, tmp_path / "store")
        _build(out, carapace, tmp_path)
        yield out


# A session of bench/reflect/ (issue 26), as the real Claude Code wrote its transcript
# and as the real OpenClaw kept its events (its session file's lines).
DIGESTED = Path(__file__).resolve().parent.parent / "bench" / "reflect" / "sessions"


def _digest_of(out: Outputs, host: str, legacy: str) -> None:
    """reflect's digest of one session in ``host``'s format, with the insights its
    start was given (noted by render --session)."""
    transcript = out.tmp_path / f"{host}.jsonl"
    transcript.write_bytes((DIGESTED / host / "list-then-correct.jsonl").read_bytes())
    session = f"golden-{host}"
    out.run(None, "render", "--query", "list the files in tests", "--budget", "200",
            "--session", session)  # fmt: skip
    out.run(None, "reflect", "--queue", "--session-key", session, "--transcript",
            str(transcript), "--reason", "end")  # fmt: skip
    out.run(f"reflect-digest-{host}", "reflect", "--pending-path", legacy, "--format", "json")
    out.run(None, "reflect", "--done", session)


def test_every_json_output_matches_its_golden_file(golden_outputs: Outputs) -> None:
    """Each command's JSON, byte for byte (after the placeholders), as its golden file."""
    differ: list[str] = []
    for name, text in golden_outputs.texts.items():
        path = GOLDEN / f"{name}.json"
        got = golden_outputs.normalised(text)
        if UPDATE:
            GOLDEN.mkdir(exist_ok=True)
            path.write_text(got, encoding="utf-8")
            continue
        assert path.exists(), f"no golden file {path.name}: run with CHITIN_UPDATE_GOLDEN=1"
        if path.read_text(encoding="utf-8") != got:
            import difflib

            lines = difflib.unified_diff(
                path.read_text(encoding="utf-8").splitlines(),
                got.splitlines(),
                f"golden/{path.name}",
                "now",
                lineterm="",
            )
            differ.append("\n".join(lines))
    assert not differ, "JSON shapes changed:\n" + "\n\n".join(differ)


def test_no_golden_file_is_left_without_its_command(golden_outputs: Outputs) -> None:
    """A golden file that no run produces any more is a shape gone unnoticed."""
    kept = {path.stem for path in GOLDEN.glob("*.json")}
    assert kept == set(golden_outputs.texts)


def _json_commands() -> Iterator[str]:
    """Every command (by its full name, 'hooks install') with a json --format."""

    def walk(command: click.Command, prefix: str) -> Iterator[str]:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from walk(sub, f"{prefix} {name}".strip())
            return
        for param in command.params:
            if param.name == "fmt" and "json" in getattr(param.type, "choices", ()):
                yield prefix

    yield from walk(cli, "")


# The commands that print JSON without a --format (their only output is JSON).
ALWAYS_JSON = {"export": "export", "hooks run": "hooks-run-session-start"}


def test_every_command_that_prints_json_has_a_golden_file() -> None:
    """A new --format json, or a new command with one, needs its golden file."""
    names = {path.stem for path in GOLDEN.glob("*.json")}
    missing = []
    for command in [*_json_commands(), *ALWAYS_JSON]:
        stem = ALWAYS_JSON.get(command, command.replace(" ", "-").replace(":", "-"))
        if stem not in names:
            missing.append(command)
    assert not missing, f"commands with JSON output but no golden file: {missing}"


def test_the_golden_files_are_json() -> None:
    """Each golden file parses: a golden file is a shape, never an error message."""
    for path in GOLDEN.glob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- where JSON is built

CHITIN = Path(__file__).parent.parent / "chitin"


def _modules(folder: str) -> Iterator[tuple[Path, Any]]:
    import ast

    for path in sorted((CHITIN / folder).rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_every_emit_json_prints_a_shape_of_render_shapes() -> None:
    """The CLI builds no JSON itself: what it prints is what a function of
    chitin/render/shapes/ returned."""
    import ast

    def shaped(value: ast.expr) -> bool:
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name)
            and value.func.value.id == "shapes"
        )

    built_here = []
    for path, tree in _modules("cli"):
        named = {  # data = shapes.export(...), then emit_json(data)
            target.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and shaped(node.value)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "emit_json"
            ):
                (argument,) = node.args
                if not (
                    shaped(argument) or (isinstance(argument, ast.Name) and argument.id in named)
                ):
                    built_here.append(f"{path.name}:{node.lineno}")
    assert not built_here, f"emit_json of a value not built by render/shapes/: {built_here}"


def test_no_json_shape_is_built_below_the_cli_but_in_render_shapes() -> None:
    """No ``to_json`` (or ``*_json``) function or method in core/, format/, search/,
    retrieval/ or render/ but render/shapes/; the interchange format
    (model/interchange.py, and the insight's and the reflection queue's shapes in
    model/) is the file format's own."""
    import ast

    found = []
    for folder in ("core", "format", "search", "retrieval", "render", "index", "store"):
        for path, tree in _modules(folder):
            if path.parent.name == "shapes":
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and (
                    node.name == "to_json" or node.name.endswith("_json")
                ):
                    found.append(f"{folder}/{path.name}:{node.name}")
    assert not found, f"JSON built outside render/shapes/: {found}"


def test_the_cli_writes_files_through_core_not_the_store() -> None:
    """--output and the merge driver write through core/writes.py: no CLI module
    imports chitin.store."""
    import ast

    reaching = []
    for path, tree in _modules("cli"):
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            reaching += [
                f"{path.name}:{node.lineno}"
                for name in names
                if name == "chitin.store" or name.startswith("chitin.store.")
            ]
    assert not reaching, f"cli/ imports chitin.store: {reaching}"
