"""`chitin skill` prints the agent guide, and the guide only teaches what the CLI does."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import click
import pytest
import yaml
from conftest import Run

from chitin import __version__
from chitin.cli import cli
from chitin.cli.skill import with_version
from chitin.model.reflection import REASONS
from chitin.resources import asset_path

GUIDE = asset_path("SKILL.md").read_text(encoding="utf-8")
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)


def front_matter(text: str) -> dict[str, object]:
    found = FRONT_MATTER.match(text)
    assert found, "the guide starts with a --- front-matter block"
    data = yaml.safe_load(found.group(1))
    assert isinstance(data, dict)
    return data


# --- what the guide mentions -------------------------------------------------------------

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
INVOCATION = re.compile(r"(?<![\w/.$-])chitin\s+(?:--store\s+\S+\s+)?([a-z][a-z-]*)")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
WORD = re.compile(r"[a-z][a-z-]*")


def code_of(markdown: str) -> list[str]:
    """The fenced blocks and the inline code spans, continuation lines joined."""
    body = FRONT_MATTER.sub("", markdown)
    blocks = [block.replace("\\\n", " ") for block in FENCE.findall(body)]
    spans = re.findall(r"`([^`\n]+)`", FENCE.sub("", body))
    return blocks + spans


def segments(code: str) -> list[str]:
    """Pieces of code that hold at most one command: quoted text is blanked out, then
    comments, backticks, ` | `, `&&` and `;` end a command."""
    pieces = []
    for line in code.splitlines():
        line = re.sub(r"\"[^\"]*\"|'[^']*'", '"…"', line)
        line = re.sub(r"(^|\s)#.*", "", line)
        pieces += re.split(r"`|\s\|\s|&&|;", line)
    return pieces


def invocations(markdown: str) -> list[tuple[str, str]]:
    """(command, the text after it up to the end of that command) for every `chitin X`."""
    found = []
    for code in code_of(markdown):
        for piece in segments(code):
            matches = list(INVOCATION.finditer(piece))
            ends = [m.start() for m in matches[1:]] + [len(piece)] if matches else []
            for match, end in zip(matches, ends, strict=True):
                found.append((match.group(1), piece[match.end() : end]))
    return found


def mentions(markdown: str) -> dict[str, list[str]]:
    by_command: dict[str, list[str]] = defaultdict(list)
    for command, rest in invocations(markdown):
        by_command[command].append(rest)
    return dict(by_command)


MENTIONS = mentions(GUIDE)


def options_of(command: click.Command) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def test_the_extraction_sees_the_guide_s_commands_and_flags() -> None:
    assert {"retrieve", "render", "contribute", "reinforce", "similar", "reflect"} <= set(MENTIONS)
    contribute_flags = {f for rest in MENTIONS["contribute"] for f in FLAG.findall(rest)}
    assert {"--type", "--claim", "--condition", "--avoid", "--json", "--source"} <= (
        contribute_flags
    )
    assert mentions("`chitin --store ~/s list --tags a` and `chitin get x # --nope`") == {
        "list": [" --tags a"],
        "get": [" x"],
    }
    assert "chitin" not in mentions("## chitin reflection\n```sh\n## chitin reflection\n```")


@pytest.mark.parametrize("name", sorted(MENTIONS))
def test_every_command_and_flag_in_the_guide_exists(name: str) -> None:
    ctx = click.Context(cli)
    command = cli.get_command(ctx, name)
    assert command is not None, f"the guide mentions `chitin {name}`, which does not exist"
    problems = []
    for rest in MENTIONS[name]:
        target = command
        if isinstance(command, click.Group):
            words = [w for w in rest.split() if WORD.fullmatch(w)]
            sub = command.get_command(ctx, words[0]) if words else None
            assert sub is not None, f"`chitin {name}{rest}` names no subcommand of {name}"
            target = sub
        problems += [
            f"`chitin {name}{rest.rstrip()}`: no option {flag}"
            for flag in FLAG.findall(rest)
            if flag not in options_of(target)
        ]
    assert not problems, "\n".join(problems)


def test_the_store_option_the_guide_shows_is_a_global_option() -> None:
    assert "chitin --store" in GUIDE
    assert "--store" in options_of(cli)


# --- the command ---------------------------------------------------------------------------


def test_prints_the_guide_with_this_version(run: Run) -> None:
    printed = run("skill").stdout
    meta = front_matter(printed)
    assert meta["name"] == "chitin"
    assert meta["version"] == __version__
    assert f'version: "{__version__}"' in printed
    assert isinstance(meta["description"], str) and len(meta["description"]) > 20
    raw = re.search(r"^metadata: (.*)$", printed, re.M)
    assert raw
    metadata = json.loads(raw.group(1))
    for key in ("openclaw", "clawdbot"):
        assert metadata[key]["emoji"] == "🦞"
        assert metadata[key]["requires"] == {"bins": ["chitin"]}
    assert printed == with_version(GUIDE, __version__)
    assert printed.split("\n---\n", 1)[1] == GUIDE.split("\n---\n", 1)[1]


def test_path_prints_the_absolute_path_of_the_guide(run: Run) -> None:
    path = Path(run("skill", "--path").stdout.rstrip("\n"))
    assert path.is_absolute() and path.is_file()
    assert path.name == "SKILL.md"
    assert path.read_text(encoding="utf-8") == GUIDE
    assert run("skill").stdout == with_version(GUIDE, __version__)


def test_only_the_front_matter_version_changes(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guide = tmp_path / "SKILL.md"
    guide.write_text(
        "---\nname: chitin\nversion: 1.4.5\nx: 'version: 2'\n---\n\n"
        "# Guide\n\nversion: 9.9.9\n\n```yaml\nversion: 3.0.0\n```\n",
        encoding="utf-8",
    )
    monkeypatch.setattr("chitin.resources.asset_path", lambda *parts: guide)
    assert run("skill").stdout == (
        f"---\nname: chitin\nversion: \"{__version__}\"\nx: 'version: 2'\n---\n\n"
        "# Guide\n\nversion: 9.9.9\n\n```yaml\nversion: 3.0.0\n```\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        "# No front-matter\n\nversion: 1.0.0\n",
        "---\nname: chitin\n---\n\nversion: 1.0.0\n",
        "\n---\nversion: 1.0.0\n---\n",
    ],
)
def test_a_version_outside_the_front_matter_is_never_touched(text: str) -> None:
    assert with_version(text, "7.7.7") == text


def test_the_first_front_matter_version_line_is_the_one_replaced() -> None:
    text = '---\r\nversion: "1.2"\r\nversion: 1.3\r\n---\r\nbody\r\n'
    assert (
        with_version(text, "7.7.7") == '---\r\nversion: "7.7.7"\r\nversion: 1.3\r\n---\r\nbody\r\n'
    )


def test_a_missing_guide_is_one_line_and_exit_1(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "assets" / "SKILL.md"
    monkeypatch.setattr("chitin.resources.asset_path", lambda *parts: missing)
    for args in (["skill"], ["skill", "--path"]):
        result = run(*args, expect=1)
        assert result.stdout == ""
        assert result.stderr == f"Error: SKILL.md not found at {missing}\n"


def test_skill_neither_opens_nor_creates_a_store(run: Run, store: Path, tmp_path: Path) -> None:
    run("skill")
    run("skill", "--path")
    assert not store.exists()
    assert not (tmp_path / "home" / "data" / "chitin").exists()


def test_the_guide_names_every_reason_a_marker_may_give() -> None:
    """The guide's line on queueing a session by hand lists the reasons `--reason`
    takes: all of them, as `chitin reflect --help` does."""
    text = asset_path("SKILL.md").read_text(encoding="utf-8")
    (line,) = [line for line in text.splitlines() if "(reasons:" in line]
    listed = re.findall(r"`([a-z]+)`", line.split("(reasons:", 1)[1])
    assert listed == list(REASONS)


def test_the_guide_says_an_exact_duplicate_is_refused(run: Run) -> None:
    """qa60: the guide told the agent "The insight is saved either way" after a
    contribute, though an exact copy of a stored insight is refused before anything is
    written (exit 1, `Error: already known as <id>: run chitin reinforce <id> …`): an
    agent reading it took the refusal for a failure of chitin."""
    claim = ["--type", "skill", "--claim", "Bisect before guessing", "--confidence", "0.7"]
    run("contribute", *claim)
    refused = run("contribute", *claim, expect=1)
    assert refused.stderr.startswith("Error: already known as ")
    assert "saved either way" not in GUIDE
    (paragraph,) = [" ".join(p.split()) for p in GUIDE.split("\n\n") if p.startswith("Read the")]
    assert "refused" in paragraph and "`Error: already known as <id>" in paragraph


def test_the_guide_gives_the_whole_rule_that_finds_the_store() -> None:
    """qa60: the guide said the store is --store (given before the command), else
    $CHITIN_STORE, else the default: it left out the store the agent stands in (a
    clone of a store is used from its folder) and said --store must come first, which
    it need not since chitin looks for it after the command too."""
    (paragraph,) = [" ".join(p.split()) for p in GUIDE.split("\n\n") if "`$CHITIN_STORE`" in p]
    assert "given before the command" not in paragraph
    assert "stand in" in paragraph and "`chitin where`" in paragraph


def test_the_helps_example_writes_the_guide_in_a_fresh_folder(tmp_path: Path) -> None:
    """fix81: `chitin skill > skills/chitin/SKILL.md`, as the help wrote it, failed in
    a folder without skills/chitin/ (the shell cannot open the file); the example, run
    as written by a shell, now makes the folder first. README's says the same."""
    import subprocess

    from click.testing import CliRunner
    from conftest import chitin_program

    help_text = CliRunner().invoke(cli, ["skill", "--help"]).stdout
    example = next(line.strip() for line in help_text.splitlines() if "SKILL.md" in line
                   and "chitin skill" in line and ">" in line)  # fmt: skip
    assert example.startswith("mkdir -p skills/chitin && "), example
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"`{example}`" in readme
    shell = example.replace("chitin skill", f"'{chitin_program()}' skill")
    subprocess.run(shell, shell=True, cwd=tmp_path, check=True, capture_output=True)
    written = (tmp_path / "skills" / "chitin" / "SKILL.md").read_text(encoding="utf-8")
    assert written == with_version(asset_path("SKILL.md").read_text(encoding="utf-8"), __version__)


def test_the_guide_says_each_recalled_line_starts_with_its_id(run: Run) -> None:
    """Issue 24 gave every line of `retrieve` its short id, in brackets, which reinforce
    takes; the guide still said `--format json` adds the ids you need to reinforce, so
    an agent following it asked for JSON to find an id it had been shown already."""
    run("init", "--seed")
    shown = run("retrieve", "--query", "fix the flaky login test").stdout
    short = re.search(r"^- \[([a-z0-9-]+)\] ", shown, re.M)
    assert short, shown
    run("reinforce", short.group(1))
    (paragraph,) = [" ".join(p.split()) for p in GUIDE.split("\n\n") if "`--budget 500`" in p]
    assert "adds the ids you need" not in paragraph
    assert "starts with its id in brackets" in paragraph
    assert "`chitin reinforce <id>`" in paragraph
