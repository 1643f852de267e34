"""Issue 28, item 4: every command finds the store by one rule, as git finds a
repository (--store, $CHITIN_STORE, the store you stand in, the default), and says
which with `chitin where`; global options follow the command too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from chitin.cli import cli
from chitin.console.ahead import reading_store
from tests.conftest import Run


def chitin(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def where(*args: str) -> dict[str, object]:
    result = chitin(*args, "where", "--format", "json")
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


@pytest.fixture
def clone(run: Run, store: Path) -> Path:
    run("init")
    claim = "Reproduce the bug first"
    run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8")
    return store


def test_standing_in_a_store_or_below_it_every_command_uses_it(
    clone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(clone / "insights")
    assert where() == {"store": str(clone), "source": "folder", "exists": True}
    listed = chitin("list", "--format", "json")
    assert [i["claim"] for i in json.loads(listed.stdout)] == ["Reproduce the bug first"]
    assert "No store at" not in listed.stderr
    assert chitin("check").exit_code == 0  # the same store as list's
    human = chitin("where").stdout.splitlines()
    assert human == [
        str(clone),
        "  the store this folder is in"
        " (a git repository with chitin's insights/ or .gitattributes)",
    ]


def test_a_folder_with_insights_but_no_git_is_not_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes" / "insights").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "notes")
    found = where()
    assert found["source"] == "default" and found["exists"] is False
    assert found["store"] == str(tmp_path / "home" / "data" / "chitin")
    assert "no store there yet" in chitin("where").stdout


def test_a_relative_xdg_data_home_is_ignored_not_read_from_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The XDG rule: a relative path in $XDG_DATA_HOME is invalid and ignored; read
    from the current folder, the default store moved with every `cd`."""
    monkeypatch.setenv("XDG_DATA_HOME", "data")
    monkeypatch.chdir(tmp_path)
    found = where()
    assert found["store"] == str(tmp_path / "home" / ".local" / "share" / "chitin")
    monkeypatch.setenv("XDG_DATA_HOME", "~/elsewhere")  # a ~ a shell did not expand
    assert where()["store"] == str(tmp_path / "home" / "elsewhere" / "chitin")


def test_a_project_with_an_insights_folder_is_not_taken_for_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """insights/ is a common folder name: a project's git repository holding one (a
    report, notes) is not a chitin store, so chitin neither reads it as one nor commits
    into it. A store has its type folders, or the .gitattributes that `init` writes."""
    import subprocess

    from chitin.location import TYPE_FOLDERS
    from chitin.model.field_spec import TYPES

    assert TYPE_FOLDERS == TYPES
    project = tmp_path / "analytics"
    (project / "insights").mkdir(parents=True)
    (project / "insights" / "q3.md").write_text("# Q3\n\nRevenue grew.\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    monkeypatch.chdir(project / "insights")
    assert where()["source"] == "default"
    claim = ["--type", "skill", "--claim", "Reproduce the bug first", "--confidence", "0.8"]
    assert chitin("contribute", *claim).exit_code == 0
    assert not (project / ".chitin").exists() and not (project / "insights" / "skill").exists()
    # an empty store, as `init` makes it, and one with its type folders, are found
    empty = tmp_path / "empty"
    assert chitin("--store", str(empty), "init").exit_code == 0
    monkeypatch.chdir(empty)
    assert where()["source"] == "folder"
    (empty / ".gitattributes").unlink()
    (empty / "insights" / "trigger").mkdir()
    assert where()["source"] == "folder"


def test_a_clone_of_a_store_with_no_insight_yet_is_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git keeps no empty folder: a clone of a store that has no insight yet (or whose
    insights are all archived) has no insights/, only chitin's .gitattributes. Standing
    in it, commands use it, as they use the clone of a store with insights."""
    import subprocess

    empty = tmp_path / "empty"
    assert chitin("--store", str(empty), "init").exit_code == 0
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(empty), str(clone)], check=True)
    assert not (clone / "insights").exists()
    monkeypatch.chdir(clone)
    assert where() == {"store": str(clone), "source": "folder", "exists": True}
    assert "no store there yet" not in chitin("--store", str(clone), "where").stdout
    claim = ["--type", "skill", "--claim", "Reproduce the bug first", "--confidence", "0.8"]
    assert chitin("contribute", *claim).exit_code == 0
    assert (clone / "insights" / "skill").is_dir()
    # a git repository with no insights/ and no chitin .gitattributes stays no store
    plain = tmp_path / "plain"
    subprocess.run(["git", "init", "-q", str(plain)], check=True)
    monkeypatch.chdir(plain)
    assert where()["source"] == "default"


def test_the_named_store_comes_before_the_folder(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(clone)
    monkeypatch.setenv("CHITIN_STORE", str(tmp_path / "env-store"))
    assert where() == {"store": str(tmp_path / "env-store"), "source": "environment",
                       "exists": False}  # fmt: skip
    named = where("--store", str(tmp_path / "opt"))
    assert named["store"] == str(tmp_path / "opt") and named["source"] == "option"


def test_global_options_follow_the_command_too(clone: Path, tmp_path: Path) -> None:
    listed = chitin("list", "--store", str(clone), "--format", "json")
    assert listed.exit_code == 0, listed.output
    assert len(json.loads(listed.stdout)) == 1
    assert chitin("where", "--store", str(clone)).stdout.startswith(str(clone))
    # the last one wins, as click takes the last of an option given twice
    later = chitin("--store", str(tmp_path / "first"), "stats", "--store", str(clone),
                   "--format", "json")  # fmt: skip
    assert json.loads(later.stdout)["total"] == 1
    assert chitin("stats", "--debug", "--store", str(clone)).exit_code == 0
    (tmp_path / "p").mkdir()
    installed = chitin("hooks", "install", "claude-code", "--dir", str(tmp_path / "p"),
                       "--store", str(clone))  # fmt: skip
    assert installed.exit_code == 0, installed.output


@pytest.mark.parametrize(
    "args",
    [["--store", "", "list"], ["--store=", "stats"], ["list", "--store", ""],
     ["get", "x", "--store="], ["contribute", "--type", "skill", "--claim", "Pin it",
      "--store", ""], ["check", "--store", ""]],
    ids=lambda a: " ".join(a),
)  # fmt: skip
def test_an_empty_store_option_is_a_usage_error_not_another_store(
    clone: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    """`chitin --store "$STORE" ...` with $STORE unset: git refuses `-C ""` too; taking
    the store you stand in (or the default) instead would write where none was meant."""
    monkeypatch.chdir(clone)
    files = sorted((clone / "insights").rglob("*.md"))
    result = chitin(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "--store" in result.stderr
    assert "empty" in result.stderr
    assert sorted((clone / "insights").rglob("*.md")) == files and result.stdout == ""


def test_where_does_not_offer_init_for_a_file(tmp_path: Path) -> None:
    """`chitin init` refuses a path that is a file: `where` must not suggest it."""
    named = tmp_path / "notes.txt"
    named.write_text("not a store")
    said = chitin("--store", str(named), "where").stdout.splitlines()
    assert (
        said[2] == "  it is a file, not a folder: --store and $CHITIN_STORE name the store's folder"
    )
    assert chitin("--store", str(named), "init").exit_code == 1


def test_a_misspelt_command_gets_did_you_mean() -> None:
    result = chitin("retreive")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: No such command 'retreive'. Did you mean 'retrieve'? (see 'chitin --help')\n"
    )
    assert "Did you mean" not in chitin("zzzz").stderr
    nested = chitin("hooks", "instal", "claude-code")
    assert nested.exit_code == 2
    assert nested.stderr.startswith(
        "Error: No such command 'instal'. Did you mean 'install' or 'uninstall'?"
    )


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("ls", "list"),
        ("rm", "archive"),
        ("show", "get"),
        ("status", "stats"),
        ("SEARCH", "retrieve"),
    ],
)
def test_a_habit_from_another_tool_gets_the_command_it_means(typed: str, meant: str) -> None:
    result = chitin(typed)
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: No such command '{typed}'. Did you mean '{meant}'? (see 'chitin --help')\n"
    )


def test_a_misspelt_option_gets_the_nearest_first_as_a_command_does() -> None:
    """click listed several near options alphabetically, in its own words ("(Did you
    mean one of: '--condition', '--confidence', '--provenance'?)"); they now read as a
    misspelt command's, the nearest first."""
    typo = chitin("contribute", "--type", "skill", "--claim", "Pin it", "--confidance", "0.5")
    assert typo.exit_code == 2
    assert typo.stderr.startswith(
        "Error: No such option '--confidance'. Did you mean '--confidence' or "
    )
    assert typo.stderr.endswith("? (see 'chitin contribute --help')\n")
    one = chitin("list", "--formt", "json").stderr
    assert (
        one
        == "Error: No such option '--formt'. Did you mean '--format'? (see 'chitin list --help')\n"
    )


def test_an_option_cut_short_gets_the_option_it_begins_first() -> None:
    """`retrieve --max 5` (carapace-query's option, or a hurried hand): difflib scored
    '--format' over '--max-results' (0.62 against 0.56), so the one option the word
    begins came after another or not at all."""
    cut = chitin("retrieve", "--query", "x", "--max", "5")
    assert cut.exit_code == 2
    assert cut.stderr.startswith("Error: No such option '--max'. Did you mean '--max-results'")
    assert chitin("contribute", "--prov", "correction").stderr.startswith(
        "Error: No such option '--prov'. Did you mean '--provenance'"
    )


def test_a_command_or_option_typed_in_capitals_gets_did_you_mean() -> None:
    """Caps Lock, or a shell habit: the letters are right, only their case is not, and
    difflib (case-sensitive) found nothing near 'LIST' or '--TYPE'."""
    assert chitin("LIST").stderr == (
        "Error: No such command 'LIST'. Did you mean 'list'? (see 'chitin --help')\n"
    )
    nested = chitin("hooks", "INSTALL", "cursor").stderr
    assert nested.startswith("Error: No such command 'INSTALL'. Did you mean 'install'")
    option = chitin("list", "--TYPE", "skill")
    assert option.exit_code == 2
    assert option.stderr == (
        "Error: No such option '--TYPE'. Did you mean '--type'? (see 'chitin list --help')\n"
    )
    assert chitin("--STORE", "x", "where").stderr.startswith(
        "Error: No such option '--STORE'. Did you mean '--store'?"
    )


def test_a_misspelt_host_gets_did_you_mean() -> None:
    """`hooks install claud-code`: the host is the word a person misspells there, so it
    gets the nearest host, as a misspelt command does; the error names HOST, not the
    brace list click makes of the choices."""
    for action in ("install", "uninstall"):
        result = chitin("hooks", action, "claud-code")
        assert result.exit_code == 2
        assert result.stderr == (
            "Error: Invalid value for 'HOST': 'claud-code' is not one of 'openclaw', "
            "'claude-code', 'claude-desktop', 'cursor', 'claude-code-mcp'. Did you mean "
            f"'claude-code'? (see 'chitin hooks {action} --help')\n"
        )
    assert "Did you mean" not in chitin("hooks", "install", "vim").stderr
    # in any case, as a command or an option in capitals is (`chitin LIST`)
    shouted = chitin("hooks", "install", "CLAUDE-CODE").stderr
    assert shouted.endswith("Did you mean 'claude-code'? (see 'chitin hooks install --help')\n")
    assert "Usage: chitin hooks install [OPTIONS] HOST" in chitin("hooks", "install", "-h").stdout


def test_help_prints_the_help_of_chitin_or_of_a_command() -> None:
    """`chitin help [COMMAND]...`, as git's `git help` and 1.4.5's `help` command (its
    command list has it): the same text as --help; a misspelt command gets the usage
    error with "did you mean"."""
    assert chitin("help").stdout == chitin("--help").stdout
    assert chitin("help", "list").stdout == chitin("list", "--help").stdout
    nested = chitin("help", "hooks", "install")
    assert (nested.exit_code, nested.stdout) == (0, chitin("hooks", "install", "--help").stdout)
    wrong = chitin("help", "retreive")
    assert wrong.exit_code == 2
    assert wrong.stderr == (
        "Error: No such command 'retreive'. Did you mean 'retrieve'? (see 'chitin --help')\n"
    )
    past = chitin("help", "list", "extra")
    assert past.exit_code == 2 and "chitin list has no subcommands" in past.stderr


def test_a_habit_is_offered_only_where_its_command_is() -> None:
    # `hooks` has no `list`: "ls" there falls back to the nearest in letters (none)
    assert "Did you mean 'list'" not in chitin("hooks", "ls").stderr


def test_the_console_finds_the_store_by_the_same_rule(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(clone / "insights")
    assert reading_store(["list"], {}) == clone
    assert reading_store(["list", "--store", str(tmp_path / "x")], {}) == tmp_path / "x"
    assert reading_store(["list", f"--store={tmp_path / 'y'}"], {}) == tmp_path / "y"
    assert reading_store(["list"], {"CHITIN_STORE": str(tmp_path / "e")}) == tmp_path / "e"
    assert reading_store(["contribute"], {}) is None


@pytest.mark.parametrize("scanned", ["insights", "archive"])
def test_no_store_is_made_inside_another_stores_insights(
    clone: Path, monkeypatch: pytest.MonkeyPatch, scanned: str
) -> None:
    """A store nested in another's folder is found from inside it (the nearest wins,
    as with git), but one made inside the other's insights/ or archive/, where every
    file is the outer store's, is most likely a slip: `init`, and a write that would
    create it, refuse it and say where to put it."""
    nested = clone / scanned / "team"
    for args in (["init"], ["contribute", "--type", "skill", "--claim", "Nested claim here",
                            "--confidence", "0.5"]):  # fmt: skip
        refused = chitin("--store", str(nested), *args)
        assert refused.exit_code == 1
        assert refused.stderr.strip().splitlines()[-1] == (
            f"Error: {nested} is inside the {scanned}/ folder of the store {clone}, whose "
            f"files are that store's insights; make the store in a folder outside "
            f"{clone}/insights and {clone}/archive"
        )
        assert not (nested / ".git").exists()
    itself = chitin("--store", str(clone / scanned), "init").stderr.strip().splitlines()[-1]
    assert itself.startswith(f"Error: {clone / scanned} is the {scanned}/ folder of the store")
    listed = chitin("--store", str(clone), "list", "--format", "json")
    assert [i["claim"] for i in json.loads(listed.stdout)] == ["Reproduce the bug first"]
    # beside the insights, a nested store is fine, and found from inside it
    beside = clone / "team"
    assert chitin("--store", str(beside), "init").exit_code == 0
    monkeypatch.chdir(beside)
    assert where()["store"] == str(beside)


@pytest.mark.parametrize("below", ["", "team"])
@pytest.mark.parametrize("command", [["list"], ["retrieve", "--query", "tests"]])
def test_a_read_inside_another_stores_insights_says_so(
    clone: Path, below: str, command: list[str]
) -> None:
    """fix121: a read there said "No store … yet (run `chitin init`)", which init then
    refuses; it says what init says, and shows an empty store as before (exit 0)."""
    named = clone / "insights" / below if below else clone / "insights"
    read = chitin("--store", str(named), *command)
    assert read.exit_code == 0
    where = "is inside" if below else "is"
    assert read.stderr.splitlines()[0] == (
        f"{named} {where} the insights/ folder of the store {clone}, whose files are that "
        f"store's insights; make the store in a folder outside {clone}/insights and "
        f"{clone}/archive; showing an empty store."
    )


DERIVED = {".chitin": "holds what chitin derives from that store's files",
           ".git": "holds that store's git repository"}  # fmt: skip


@pytest.mark.parametrize("below", ["", "team"])
@pytest.mark.parametrize("kept", [".chitin", ".git"])
def test_no_store_is_made_inside_another_stores_chitin_or_git_folder(
    clone: Path, kept: str, below: str
) -> None:
    """fix125: `--store <store>/.chitin` (or .git/...) with a write made a new store
    there, inside the derived folder (or git's own folder, or failed there naming the
    wrong repository and leaving a folder behind). No one means a store there: init and
    every write refuse it in one line naming the store and the --store to use."""
    named = clone / kept / below if below else clone / kept
    where = "is inside" if below else "is"
    expected = (
        f"Error: {named} {where} the {kept}/ folder of the store {clone}, which "
        f"{DERIVED[kept]}; no store can be made there: to use that store, name it with "
        f"--store {clone}"
    )
    for args in (["init"], ["contribute", "--type", "skill", "--claim", "Nested claim here",
                            "--confidence", "0.5"]):  # fmt: skip
        refused = chitin("--store", str(named), *args)
        assert refused.exit_code == 1
        assert refused.stderr.strip().splitlines() == [expected]
        assert not (named / ".git").exists() and not (named / "insights").exists()
        assert not below or not named.exists()
    read = chitin("--store", str(named), "list")
    assert read.exit_code == 0
    assert read.stderr.splitlines()[0] == f"{expected[7:]}; showing an empty store."
    listed = chitin("--store", str(clone), "list", "--format", "json")
    assert [i["claim"] for i in json.loads(listed.stdout)] == ["Reproduce the bug first"]


def test_no_store_is_made_inside_another_stores_insights_through_a_link(
    clone: Path, tmp_path: Path
) -> None:
    """The folder a link leads to is where the store would be made: a link to the
    other store's insights/ does not let a store in there, unseen."""
    link = tmp_path / "shortcut"
    link.symlink_to(clone / "insights")
    refused = chitin("--store", str(link / "team"), "init")
    assert refused.exit_code == 1
    assert (
        refused.stderr.strip()
        .splitlines()[-1]
        .startswith(f"Error: {link / 'team'} is inside the insights/ folder of the store {clone}")
    )
    assert not (clone / "insights" / "team").exists()


@pytest.mark.parametrize("walk_limit", [2000, 0], ids=["stat walk", "git status"])
def test_a_repository_inside_the_insights_is_not_read_as_insights(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, walk_limit: int
) -> None:
    """git skips a repository nested in its work tree (it is another's files); so does
    chitin's walk: a store cloned into another's insights/ by hand is not read as the
    outer store's insights, in a full walk (a fresh cache) as after one."""
    import subprocess

    monkeypatch.setattr("chitin.index.cache.WALK_LIMIT", walk_limit)

    other = tmp_path / "other"
    assert chitin("--store", str(other), "init").exit_code == 0
    claim = ["--type", "skill", "--claim", "Nested store claim about caching", "--confidence",
             "0.5"]  # fmt: skip
    assert chitin("--store", str(other), "contribute", *claim).exit_code == 0
    for fresh in (True, False):
        if fresh:
            subprocess.run(["rm", "-rf", str(clone / ".chitin")], check=True)
        subprocess.run(["git", "clone", "-q", str(other), str(clone / "insights" / "team")],
                       check=True)  # fmt: skip
        listed = chitin("--store", str(clone), "list", "--format", "json")
        assert [i["claim"] for i in json.loads(listed.stdout)] == ["Reproduce the bug first"]
        checked = chitin("--store", str(clone), "check", "--format", "json")
        assert json.loads(checked.stdout)["files"] == 1
        subprocess.run(["rm", "-rf", str(clone / "insights" / "team")], check=True)


def test_a_store_named_through_dot_dot_is_the_folder_it_leads_to(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--store ../personality` names the folder it leads to now: kept as
    /here/../personality, a hook bound at install stopped finding the store once the
    folder it was installed from was gone, though the store was still there."""
    here = tmp_path / "project"
    here.mkdir()
    monkeypatch.chdir(here)
    relative = f"../{clone.name}"
    assert where("--store", relative)["store"] == str(clone)
    monkeypatch.setenv("CHITIN_STORE", relative)
    assert where()["store"] == str(clone)
    monkeypatch.delenv("CHITIN_STORE")
    (tmp_path / "elsewhere").mkdir()
    installed = chitin("--store", relative, "hooks", "install", "cursor", "--dir",
                       str(tmp_path / "elsewhere"), "--format", "json")  # fmt: skip
    assert json.loads(installed.stdout)["store"] == str(clone)


@pytest.mark.parametrize("value", ["", " ", "\t "])
def test_a_chitin_store_of_white_space_alone_is_as_if_unset(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """qa60: `CHITIN_STORE=" "` named a folder called " " in the current folder (a
    write made a store there, a name no listing shows), while an empty one counts as
    unset and `--store " "` is refused as empty. White space alone is unset too: the
    store you stand in, else the default, is used."""
    monkeypatch.setenv("CHITIN_STORE", value)
    monkeypatch.chdir(clone / "insights")
    assert where() == {"store": str(clone), "source": "folder", "exists": True}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert where()["source"] == "default"
    from chitin.location import store_path

    assert store_path(None, {"CHITIN_STORE": value, "HOME": str(tmp_path)}).name == "chitin"
