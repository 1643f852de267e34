"""Bad input: one line on stderr naming the field and the allowed values, exit 1
(2 for usage errors), no traceback, and nothing written or committed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, commit_count

CONTRIBUTE = ["contribute", "--type", "skill", "--claim", "A claim", "--confidence", "0.5"]


def files_in(store: Path) -> list[Path]:
    return sorted(p for p in store.rglob("*.md") if ".git" not in p.parts and p.name != "README.md")


def replace(args: list[str], flag: str, value: str) -> list[str]:
    changed = list(args)
    changed[changed.index(flag) + 1] = value
    return changed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            replace(CONTRIBUTE, "--type", "hobby"),
            "Error: invalid type 'hobby' (allowed: behavioral, personality, relational, "
            "principle, skill, trigger)",
        ),
        (
            [*CONTRIBUTE, "--provenance", "rumour"],
            "Error: invalid provenance 'rumour' (allowed: directive, observation, social, "
            "correction, reflection, external)",
        ),
        (replace(CONTRIBUTE, "--claim", "  "), "Error: claim must be a non-empty text"),
        (
            replace(CONTRIBUTE, "--type", "trigger"),
            'Error: a trigger needs a condition (--condition "when …")',
        ),
        (
            [*CONTRIBUTE, "--condition", "x"],
            "Error: condition and avoid apply only to triggers, not to a skill insight",
        ),
        (["get", "nope"], "Error: Insight not found: nope"),
        (
            ["get", "../../etc/passwd"],
            "Error: invalid id '../../etc/passwd': use letters, digits, "
            "'-', '_' and '.', no path separators and no '..'",
        ),
        (
            ["get", "_dash"],
            "Error: invalid id '_dash': start it with a letter or digit (use letters, "
            "digits, '-', '_' and '.', no path separators and no '..')",
        ),
        (
            ["get", "a" * 129],
            f"Error: invalid id '{'a' * 76}…: at most 128 characters, got 129 (use "
            "letters, digits, '-', '_' and '.', no path separators and no '..')",
        ),
        (["update", "nope", "--claim", "x"], "Error: Insight not found: nope"),
        (["reinforce", "nope"], "Error: Insight not found: nope"),
        (["archive", "nope"], "Error: Insight not found: nope"),
        (["history", "nope"], "Error: Insight not found: nope"),
        (["merge", "nope", "other"], "Error: Source insight not found: nope"),
        (
            ["list", "--type", "hobby"],
            "Error: invalid type 'hobby' (allowed: behavioral, "
            "personality, relational, principle, skill, trigger)",
        ),
    ],
)
def test_bad_values_give_one_line_and_exit_1(
    run: Run, store: Path, args: list[str], message: str
) -> None:
    run("init")
    result = run(*args, expect=1)
    assert result.stderr == message + "\n"
    assert result.stdout == ""
    assert files_in(store) == [] and commit_count(store) == 1


def test_unknown_evidence_and_self_merge_are_refused(run: Run, add: object, store: Path) -> None:
    made = add("skill", "Existing", 0.5)  # type: ignore[operator]
    before = (commit_count(store), [p.read_text() for p in files_in(store)])
    bad = run("reinforce", made["id"], "--evidence", "hunch", expect=1)
    assert bad.stderr == ("Error: invalid evidence 'hunch' (allowed: external, internal, social)\n")
    itself = run("merge", made["id"], made["id"], expect=1)
    assert itself.stderr == "Error: Cannot merge an insight with itself\n"
    assert (commit_count(store), [p.read_text() for p in files_in(store)]) == before


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (
            "{not json",
            "Error: malformed JSON on stdin: Expecting property name enclosed in "
            "double quotes: line 1 column 2 (char 1)",
        ),
        ("[1, 2]", "Error: stdin must hold one JSON object such as "),
        ('{"type": "skill", "claim": "x"}', "Error: confidence is required"),
        (
            '{"type": "skill", "claim": "x", "confidence": 0.5, "colour": "red"}',
            "Error: unknown field 'colour' (allowed: type, claim, confidence",
        ),
        (
            '{"type": "skill", "claim": "x", "confidence": "high"}',
            "Error: confidence must be a number from 0 to 1, got 'high'",
        ),
        (
            '{"type": "skill", "claim": "x", "confidence": 0.5, "claim": "y"}',
            'Error: stdin gives the key "claim" twice in one object',
        ),
    ],
)
def test_bad_json_on_stdin(run: Run, store: Path, stdin: str, message: str) -> None:
    result = run("contribute", "--json", input=stdin, expect=1)
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1
    assert files_in(store) == []


def test_a_binary_file_to_import_is_named_as_neither_json_nor_a_database(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """A file of bytes that are not UTF-8 (a zip, a picture) said Python's codec
    error: "'utf-8' codec can't decode byte 0xd7 in position 1: invalid continuation
    byte"."""
    run("init")
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0 not text")
    result = run("import", str(binary), expect=1)
    assert result.stderr == (
        f"Error: {binary} is neither JSON nor a chitin 1.x database: it is not UTF-8 text "
        "(byte 1)\n"
    )
    assert files_in(store) == []


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["contribute", "--claim", "x", "--confidence", "1"], "Missing option '--type'."),
        (["contribute", "--json", "--claim", "x"], "--json reads the insight from stdin"),
        (
            ["list", "--format", "yaml"],
            "Invalid value for '--format': 'yaml' is not one of 'human', 'json'.",
        ),
        (["frobnicate"], "No such command 'frobnicate'."),
        (
            ["list", "--tgas"],
            "No such option '--tgas'. Did you mean '--tags'? (see 'chitin list --help')",
        ),
        (["get"], "Missing argument 'ID'."),
        (
            ["get", "abc", "--format"],
            "Option '--format' requires an argument. (see 'chitin get --help')",
        ),
        (
            ["--store", "s", "list", "--store"],
            "Option '--store' requires an argument. (see 'chitin list --help')",
        ),
        (
            ["changelog", "--limit", "0"],
            "Invalid value for '--limit': 0 is not in the range 1<=x<=1000000.",
        ),
        # click said "'x' is not a valid integer range.", naming no range
        (
            ["changelog", "--days", "x"],
            "Invalid value for '--days': 'x' is not a whole number in the range 1<=x<=100000.",
        ),
        (
            ["retrieve", "--query", "q", "--budget", "1.5"],
            "Invalid value for '--budget': '1.5' is not a whole number in the range 1<=x<=1000000.",
        ),
        (
            ["reflect", "--max-characters", "lots"],
            "Invalid value for '--max-characters': 'lots' is not a whole number in the "
            "range x>=500.",
        ),
        (
            ["carapace-query", "q", "--max", "many"],
            "Invalid value for '--max': 'many' is not a whole number in the range 1<=x<=20.",
        ),
    ],
)
def test_usage_errors_give_one_line_and_exit_2(run: Run, args: list[str], fragment: str) -> None:
    result = run(*args, expect=2)
    assert result.stderr.startswith("Error: ") and fragment in result.stderr
    assert result.stderr.count("\n") == 1 and "--help" in result.stderr


@pytest.mark.parametrize(
    ("args", "code"),
    [(["list", "--format"], 2), (["list", "--type"], 1), (["get"], 1), (["stats"], 2)],
    ids=lambda a: " ".join(a) if isinstance(a, list) else str(a),
)
def test_a_huge_value_is_clipped_in_the_error_line(run: Run, args: list[str], code: int) -> None:
    """A value pasted by mistake (5,000 characters) is not echoed whole: the line
    stays one a person can read, with the allowed values still at its end."""
    run("init")
    result = run(*args, "x" * 5000, expect=code)
    assert result.stderr.count("\n") == 1 and len(result.stderr) < 400, result.stderr[:400]
    assert "xxx…" in result.stderr


@pytest.mark.parametrize(
    "args",
    [["import", "no\nsuch\x1b[31m.json"], ["render", "--template", "no\nsuch\x1b[31m.md"]],
    ids=["import", "template"],
)
def test_a_line_break_or_escape_in_a_named_file_stays_inside_the_one_line(
    run: Run, args: list[str]
) -> None:
    """A file name is echoed in the error: its line break split the line in two, and
    a terminal's escape sequence in it was sent to the terminal as it was."""
    run("init")
    result = run(*args, expect=2 if args[0] == "render" else 1)
    assert result.stderr.count("\n") == 1 and "\x1b" not in result.stderr, result.stderr
    assert "no\\nsuch\\x1b[31m" in result.stderr


@pytest.mark.parametrize(
    "args",
    [["\x1b[31mlist"], ["list", "--ty\npe", "skill"], ["list", "--\x1b[2Jtype", "skill"]],
    ids=["command", "option-break", "option-escape"],
)
def test_a_misspelt_name_with_a_break_or_escape_stays_one_harmless_line(
    run: Run, args: list[str]
) -> None:
    """The unknown command or option is echoed in its usage error (with its "did you
    mean"): an option's line break split the line in two, and an escape sequence in
    either was sent to the terminal as it was."""
    result = run(*args, expect=2)
    assert result.stderr.count("\n") == 1 and "\x1b" not in result.stderr, result.stderr
    assert result.stderr.startswith("Error: No such ")
    assert "\\x1b" in result.stderr or "\\n" in result.stderr


@pytest.mark.parametrize(
    "args",
    [["list", "--type", "skil"], ["list", "--provenance", "rumour"], ["get", "../x"],
     ["retrieve", "--query", "x", "--min-confidence", "5"]],
    ids=lambda a: " ".join(a),
)  # fmt: skip
def test_bad_input_on_a_missing_store_is_one_line(run: Run, store: Path, args: list[str]) -> None:
    """The store being missing has nothing to do with a mistyped value: that one line
    only, not a note about the store first (a flag's range: a usage error, exit 2)."""
    result = run(*args, expect=2 if "--min-confidence" in args else 1)
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert not store.exists()


def test_a_missing_store_is_still_said_when_it_explains_the_outcome(run: Run) -> None:
    assert "No store at" in run("get", "abc", expect=1).stderr  # why nothing is found
    assert "No store at" in run("list").stderr


def test_an_unexpected_error_is_one_line_without_traceback(run: Run, monkeypatch: object) -> None:
    from chitin import core

    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("disk on fire")

    run("init")
    monkeypatch.setattr(core.Chitin, "stats", explode)  # type: ignore[attr-defined]
    result = run("stats", expect=3)
    assert result.stderr == (
        "Error: internal error: RuntimeError: disk on fire "
        "(run again with --debug for the traceback)\n"
    )
    assert "Traceback" not in result.output


def test_a_store_path_that_is_a_file_is_an_error(run: Run, store: Path) -> None:
    store.write_text("not a folder")
    result = run("init", expect=1)
    assert result.stderr == (
        f"Error: the store path {store} is a file, not a folder "
        "(--store and $CHITIN_STORE name the store's folder)\n"
    )


@pytest.mark.parametrize("below", ["sub", "sub/deeper"])
def test_a_write_to_a_store_below_a_file_names_the_file(
    run: Run, tmp_path: Path, below: str
) -> None:
    """``--store afile/sub``: the folder is not missing, a file stands in its path."""
    blocker = tmp_path / "afile"
    blocker.write_text("a file")
    named = blocker / below
    contribute = ["contribute", "--type", "skill", "--claim", "Start small", "--confidence", "0.5"]
    result = run("--store", str(named), *contribute, expect=1)
    assert result.stderr == (
        f"Error: cannot create the store at {named}: {blocker} is a file, not a folder\n"
    )
    assert blocker.read_text() == "a file"


@pytest.mark.parametrize("command", [["list"], ["retrieve", "--query", "tests"], ["diff"]])
def test_a_read_of_a_store_below_a_file_names_the_file(
    run: Run, tmp_path: Path, command: list[str]
) -> None:
    """fix121: a read said "No store … yet (run `chitin init`)", which would fail; it
    says what a write says, and shows an empty store as before (exit 0)."""
    blocker = tmp_path / "afile"
    blocker.write_text("a file")
    named = blocker / "sub"
    said = run("--store", str(named), *command).stderr
    assert said.splitlines()[0] == (
        f"Cannot create the store at {named}: {blocker} is a file, not a folder; "
        "showing an empty store."
    )
    started = run("--store", str(named), "hooks", "run", "claude-code", "session-start")
    assert "from an empty store" in started.stdout  # the session start never fails


@pytest.mark.parametrize("command", [["init"], ["list"], ["contribute", "--json"]])
def test_a_store_path_that_is_not_utf8_is_an_error(
    run: Run, tmp_path: Path, command: list[str]
) -> None:
    """A folder named with a byte that is not UTF-8 (0xff, read as \\udcff): init made a
    store there, and every write after failed as an internal error, exit 3 (qa53)."""
    named = tmp_path / "store\udcff"
    document = '{"type": "skill", "claim": "Start small", "confidence": 0.5}'
    result = run("--store", str(named), *command, input=document, expect=1)
    assert result.stderr == (
        f"Error: the store path {tmp_path}/store\\udcff is not valid UTF-8 (at character "
        f"{len(str(tmp_path)) + 7}); name a folder whose path is, with --store or "
        "$CHITIN_STORE\n"
    )
    assert not list(tmp_path.glob("store*"))


@pytest.mark.parametrize(
    "command",
    [
        ["contribute", "--type", "skill", "--claim", "Start small", "--confidence", "0.5"],
        ["reflect", "--queue", "--session-key", "agent:main:1", "--reason", "end"],
    ],
    ids=["contribute", "reflect --queue"],
)
def test_a_file_where_chitin_keeps_its_folder_stops_a_write_with_one_line(
    run: Run, store: Path, command: list[str]
) -> None:
    """Not `internal error: FileExistsError`: the line says what is in the way, that
    it holds only derived data, and what to do; nothing is written."""
    run("init")
    commits = commit_count(store)
    (store / ".chitin").mkdir(exist_ok=True)
    import shutil

    shutil.rmtree(store / ".chitin")
    (store / ".chitin").write_text("a file in the way\n")
    result = run(*command, expect=1)
    assert result.stderr == (
        f"Error: {store / '.chitin'} is not a folder, so writers cannot take their lock "
        "there; it holds only chitin's derived data: remove it and run again\n"
    )
    assert commit_count(store) == commits
    assert (store / ".chitin").read_text() == "a file in the way\n"


@pytest.mark.parametrize("args", [[], ["hooks"]])
def test_a_bare_command_shows_its_help_not_one_squashed_line(args: list[str]) -> None:
    """`chitin` alone (a new user's first try) or a group without its command prints the
    help as it is laid out, as `chitin --help` does, on stderr with exit 2; not the whole
    help flattened into one `Error: Usage: …` line."""
    import subprocess

    from conftest import chitin_program

    done = subprocess.run([chitin_program(), *args], capture_output=True, text=True)
    group = ["hooks"] if args[:1] == ["hooks"] else []
    helped = subprocess.run([chitin_program(), *group, "--help"], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert not done.stderr.startswith("Error:")
    assert done.stderr.strip() == helped.stdout.strip()


@pytest.mark.parametrize(
    "args",
    [
        ["hooks", "install", "claude-code", "--dir", ""],
        ["hooks", "install", "openclaw", "--dir", " "],
        ["hooks", "install", "cursor", "--dir", ""],
        ["reflect", "--queue", "--session-key", "k", "--reason", "new", "--transcript", ""],
        [
            "reflect",
            "--queue",
            "--session-key",
            "k",
            "--session-id",
            "s",
            "--reason",
            "new",
            "--agent-database",
            "",
        ],
        ["reflect", "--clear", "--pending-path", ""],
        ["carapace-query", "flaky tests", "--carapace-config", ""],
        ["check", ""],
        ["import", ""],
    ],
    ids=[
        "hooks-claude-code",
        "hooks-openclaw",
        "hooks-cursor",
        "transcript",
        "agent-database",
        "pending-path",
        "carapace-config",
        "check",
        "import",
    ],
)
def test_an_empty_path_is_refused_not_taken_for_the_current_folder(
    run: Run, store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    """``--dir "$UNSET"``: pathlib reads "" as ".", so hooks were installed into the
    folder the command ran in, a marker named that folder as its transcript, and the
    others said odd things of "." ("cannot clear .: Device or resource busy"), where
    an empty --store or --output is refused as empty."""
    run("init")
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = run(*args, expect=2)
    assert result.stderr.startswith("Error: Invalid value for ")
    assert "it is empty" in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert list(here.iterdir()) == []
    assert not (store / ".chitin" / "reflections.json").exists()


@pytest.mark.parametrize(
    ("args", "made"),
    [
        (["hooks", "install", "claude-code", "--dir", "~/x"], "x/.claude/settings.json"),
        (["hooks", "install", "openclaw", "--dir", "~/x"], "x/chitin/package.json"),
        (["hooks", "install", "cursor", "--dir", "~/x"], "x/.cursor/mcp.json"),
        (["render", "--output", "~/x/out.md"], "x/out.md"),
        (["export", "--output", "~/x/out.json"], "x/out.json"),
    ],
    ids=["hooks-claude-code", "hooks-openclaw", "hooks-cursor", "render", "export"],
)
def test_a_quoted_tilde_names_the_home_folder(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], made: str
) -> None:
    """``--dir '~/x'`` as a config tool or a script passes it (no shell to expand it)
    named a folder ``~`` under the current one; a path option expands ``~`` itself."""
    run("init")
    home = tmp_path / "home"
    (home / "x").mkdir()
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    run(*args)
    assert (home / made).is_file()
    assert list(here.iterdir()) == []


def test_a_tilde_without_a_home_is_refused(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    run("init")
    monkeypatch.delenv("HOME")
    result = run("hooks", "install", "claude-code", "--dir", "~/x", expect=2)
    assert result.stderr.count("\n") == 1 and "HOME is not set" in result.stderr


# What float() takes beside plain decimals: digit groups, other scripts' digits,
# exponents, words. A confidence is a plain decimal (ASCII digits, one '.', a sign).
NOT_PLAIN = ["0.5_0", "١", "٠.٥", "5e-1", "0x1", "inf", "nan", "½", "0.5 0", ""]


@pytest.mark.parametrize("value", NOT_PLAIN)
def test_a_confidence_that_is_not_a_plain_decimal_is_refused_at_every_door(
    run: Run, store: Path, value: str
) -> None:
    run("init")
    line = f"Error: confidence must be a number from 0 to 1, got {value!r}\n"
    item = json.dumps({"type": "skill", "claim": "Plain numbers", "confidence": value})
    assert run("contribute", "--json", input=item, expect=1).stderr == line
    # A flag's value is a usage error naming the flag (fix100).
    said = f"{value!r} is not a number in the range 0<=x<=1."
    flags = ["--type", "skill", "--claim", "Plain numbers only"]
    for args in (
        ["contribute", *flags, "--confidence", value],
        ["list", "--min-confidence", value],
        ["retrieve", "--query", "x", "--min-confidence", value],
    ):
        flag = args[-2]
        error = run(*args, expect=2).stderr
        assert error.startswith(f"Error: Invalid value for '{flag}': {said} (see "), error


@pytest.mark.parametrize(
    ("args", "flag", "allowed"),
    [
        (["list", "--min-confidence", "2"], "--min-confidence", "0<=x<=1"),
        (["retrieve", "--query", "x", "--min-confidence", "-1"], "--min-confidence", "0<=x<=1"),
        (["render", "--min-confidence", "2"], "--min-confidence", "0<=x<=1"),
        (["similar", "x", "--threshold", "2"], "--threshold", "0<=x<=1"),
        (["carapace-query", "x", "--min-confidence", "2"], "--min-confidence", "0<=x<=1"),
        (["update", "x", "--confidence", "2"], "--confidence", "0<=x<=1"),
        (["retrieve", "--query", "x", "--budget", "0"], "--budget", "1<=x<=1000000"),
        (["retrieve", "--query", "x", "--max-results", "0"], "--max-results", "1<=x<=1000000"),
        (["history", "x", "--limit", "0"], "--limit", "1<=x<=1000000"),
        (["changelog", "--days", "0"], "--days", "1<=x<=100000"),
        (["carapace-query", "x", "--max", "21"], "--max", "1<=x<=20"),
    ],
    ids=lambda v: v if isinstance(v, str) else " ".join(v[:3]),
)
def test_a_number_out_of_range_names_its_flag_and_range(
    run: Run, args: list[str], flag: str, allowed: str
) -> None:
    """fix100: `list --min-confidence 2` said "confidence must be between 0 and 1"
    (exit 1), naming no flag; every numeric flag now refuses as click does."""
    run("init")
    error = run(*args, expect=2).stderr
    assert error.startswith(f"Error: Invalid value for '{flag}': "), error
    assert f"in the range {allowed}." in error and error.count("\n") == 1, error


def test_the_session_starts_parser_names_the_flag_too(store: Path) -> None:
    """`list` and `render` run without click (cli/lean.py): a value it doubts is click's."""
    import subprocess

    from conftest import chitin_program

    done = subprocess.run([chitin_program(), "--store", str(store), "list", "--min-confidence",
                           "2"], capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        "Error: Invalid value for '--min-confidence': 2 is not in the range 0<=x<=1. "
        "(see 'chitin list --help')\n"
    )


@pytest.mark.parametrize("value", ["0.5", " 0.5 ", ".5", "1.", "+0.25", "1", "0"])
def test_a_plain_decimal_confidence_is_taken_as_before(run: Run, value: str) -> None:
    run("init")
    flags = ["--type", "skill", "--claim", "Plain numbers only", "--format", "json"]
    made = json.loads(run("contribute", *flags, "--confidence", value).stdout)
    assert made["insight"]["confidence"] == float(value)


def test_the_library_refuses_a_confidence_that_is_not_a_plain_decimal(store: Path) -> None:
    from chitin import Chitin, ValidationError

    with Chitin(store=store) as chitin:
        chitin.init()
        with pytest.raises(ValidationError, match="got '١'"):
            chitin.contribute({"type": "skill", "claim": "Plain", "confidence": "١"})


@pytest.mark.parametrize("name", ["none", "Local", "ollama-ish"])
def test_an_unknown_embedding_provider_is_a_usage_error_naming_the_allowed(
    run: Run, name: str
) -> None:
    """fix81: `embed --provider none` said "Unknown embedding provider" and exited 1, as
    an error of the store would; a bad flag value is a usage error (exit 2)."""
    run("init")
    result = run("embed", "--provider", name, expect=2)
    assert result.stderr == (
        f"Error: Invalid value for '--provider': {name!r} is not a provider; "
        "name one of local, voyage, openai, or leave the option out "
        "(see 'chitin embed --help')\n"
    ), result.stderr


@pytest.mark.parametrize("command", [["list"], ["retrieve", "--query", "q"], ["render"]])
def test_a_filter_of_too_many_tags_is_refused_in_one_line(
    run: Run, add: Any, command: list[str]
) -> None:
    """A thousand tags made one SQL expression too deep for SQLite: "internal error:
    OperationalError: Expression tree is too large (maximum depth 1000)"."""
    add("skill", "Pin the versions", 0.8)
    many = ",".join(f"t{n}" for n in range(1000))
    result = run(*command, "--tags", many, expect=1)
    assert result.stderr == (
        "Error: a filter takes at most 500 tags (an insight with any of them matches), got 1000\n"
    )
    enough = ",".join(f"t{n}" for n in range(500))
    assert run(*command, "--tags", enough, expect=0).exit_code == 0
