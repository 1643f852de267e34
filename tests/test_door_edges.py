"""Edges at chitin's doors (fix70a): a mistyped --dir or store path is refused instead
of created, an explicitly empty choice is bad input, a home that is not set names no
default store, and a slug keeps the letters NFKD cannot take apart."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import Run, chitin_program

# ------------------------------------------------------------------ hooks install --dir


@pytest.mark.parametrize(
    "host", ["openclaw", "claude-code", "claude-desktop", "cursor", "claude-code-mcp"]
)
def test_install_into_a_folder_that_does_not_exist_is_refused(
    run: Run, tmp_path: Path, host: str
) -> None:
    typo = tmp_path / "typo" / "does" / "not" / "exist"
    done = run("hooks", "install", host, "--dir", str(typo), expect=1)
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and str(typo) in said[0] and "does not exist" in said[0], said
    assert done.stdout == ""
    assert not (tmp_path / "typo").exists()  # nothing of the chain was made


def test_install_makes_the_hosts_own_folder_inside_an_existing_dir(
    run: Run, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    run("hooks", "install", "claude-code", "--dir", str(project))
    assert (project / ".claude" / "settings.json").is_file()
    run("hooks", "install", "cursor", "--dir", str(project))
    assert (project / ".cursor" / "mcp.json").is_file()


# ------------------------------------------------------------------ slugs


def _contributed_id(run: Run, claim: str) -> str:
    done = run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8",
               "--format", "json")  # fmt: skip
    return str(json.loads(done.stdout)["insight"]["id"])


@pytest.mark.parametrize(
    ("claim", "slug"),
    [
        ("Straße tests first", "strasse-tests-first"),
        ("STRASSE and Æsir and Œuvre", "strasse-and-aesir-and-oeuvre"),
        ("Ørsted measures Łódź", "orsted-measures-lodz"),
        ("Đorđe the Þórr of ðe ıdle", "dorde-the-thorr-of-de-idle"),
        ("ÞÆÐØŁŒẞ", "thaedoloess"),
    ],
)
def test_a_slug_keeps_letters_nfkd_does_not_take_apart(run: Run, claim: str, slug: str) -> None:
    insight_id = _contributed_id(run, claim)
    assert insight_id.rsplit("-", 1)[0] == slug


def test_a_stored_insight_keeps_its_id_and_file(run: Run, store: Path) -> None:
    """An insight made before the rule changed keeps its name: ids never change."""
    insight_id = _contributed_id(run, "Straße first")
    old = store / "insights" / "skill" / f"{insight_id}.md"
    kept = old.with_name("strae-first-k3f9.md")  # as the old rule named it
    old.rename(kept)
    text = kept.read_text().replace(insight_id, "strae-first-k3f9")
    kept.write_text(text)
    run("reinforce", "strae-first-k3f9")
    assert kept.is_file()
    assert json.loads(run("get", "strae", "--format", "json").stdout)["id"] == "strae-first-k3f9"


# ------------------------------------------------------------------ empty choices


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (["embed", "--provider", ""], "local, voyage, openai"),
        (["embed", "--provider="], "local, voyage, openai"),
        (["list", "--type", ""], "behavioral, personality"),
        (["list", "--type", " , "], "behavioral, personality"),
        (["list", "--provenance", ""], "directive, observation"),
        (["retrieve", "--query", "tests", "--type="], "behavioral, personality"),
        (["render", "--type", ""], "behavioral, personality"),
        (["retrieve", "--query", "tests", "--tags", ""], "a tag"),
        (["list", "--tags", " , "], "a tag"),
        (["render", "--tags="], "a tag"),
    ],
)
def test_an_explicitly_empty_choice_is_a_usage_error(
    run: Run, args: list[str], allowed: str
) -> None:
    run("init")
    done = run(*args, expect=2)
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and "empty" in said[0] and allowed in said[0], said
    assert done.stdout == ""


def test_an_empty_model_is_a_usage_error(run: Run) -> None:
    run("init")
    said = run("embed", "--model", "", expect=2).stderr.strip().splitlines()
    assert len(said) == 1 and "--model" in said[0] and "empty" in said[0], said


@pytest.mark.parametrize(
    "args",
    [["list", "--type", ""], ["list", "--provenance="], ["retrieve", "--query", "x", "--tags="]],
)
def test_the_console_script_refuses_them_too(store: Path, args: list[str]) -> None:
    """The session start's own parser (cli/lean.py) leaves an empty value to click."""
    subprocess.run([chitin_program(), "--store", str(store), "init"], check=True,
                   capture_output=True)  # fmt: skip
    done = subprocess.run([chitin_program(), "--store", str(store), *args],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "empty" in done.stderr


def test_an_empty_provider_in_chitin_yaml_is_named_not_taken_for_local(
    run: Run, store: Path
) -> None:
    run("init")
    (store / "chitin.yaml").write_text('embedding:\n  provider: ""\n')
    said = run("embed", expect=1).stderr.strip().splitlines()
    assert len(said) == 1 and "embedding.provider" in said[0] and "empty" in said[0], said
    assert "local, voyage, openai, none" in said[0]
    found = json.loads(run("check", "--format", "json", expect=1).stdout)
    assert [e["message"][:17] for e in found["errors"]] == ["provider is empty"]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ('""', "embedding.model is empty; name the provider's model, or remove the line"),
        ("42", "embedding.model must be a model's name (a text), got 42"),
    ],
)
def test_a_model_in_chitin_yaml_that_names_none_is_reported_by_check(
    run: Run, store: Path, written: str, said: str
) -> None:
    """fix81: `model: ""` (the provider's own model, silently) or `model: 42` under
    the openai provider passed `check` without a word; it is reported as a bad
    provider is."""
    run("init")
    (store / "chitin.yaml").write_text(f"embedding:\n  provider: openai\n  model: {written}\n")
    found = json.loads(run("check", "--format", "json", expect=1).stdout)
    assert next(e["message"] for e in found["errors"]).startswith(said[len("embedding.") :])
    assert said in run("embed", expect=1).stderr


# ------------------------------------------------------------------ no home


def _chitin(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([chitin_program(), *args], capture_output=True, text=True,
                          env=env, check=False)  # fmt: skip


def _made(tmp_path: Path) -> list[str]:
    """What the test's folder holds beyond what the fixtures put there."""
    return sorted(p.name for p in tmp_path.iterdir() if p.name not in ("home", "gitconfig"))


def _without_home(home: str | None, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_DATA_HOME")}
    if home is not None:
        env["HOME"] = home
    return {**env, **more}


@pytest.mark.parametrize(
    "env",
    [
        _without_home(""),
        _without_home(None),
        _without_home("relative/home"),
        _without_home("", XDG_DATA_HOME="data"),  # relative: ignored, as XDG says
    ],
    ids=["empty", "unset", "relative", "relative-xdg"],
)
@pytest.mark.parametrize(
    "args",
    [
        ["where"],
        ["list"],
        ["contribute", "--type", "skill", "--claim", "Test it", "--confidence", "0.8"],
        ["hooks", "install", "claude-code", "--dir", "."],
    ],
    ids=["where", "list", "contribute", "hooks"],
)
def test_no_home_and_no_store_named_is_refused(
    tmp_path: Path, env: dict[str, str], args: list[str]
) -> None:
    done = _chitin(env, *args)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == (
        "Error: HOME is not set: name a store with --store or CHITIN_STORE"
    )
    assert done.stdout == ""
    assert _made(tmp_path) == []


def test_a_named_store_or_an_absolute_xdg_data_home_needs_no_home(tmp_path: Path) -> None:
    named = _chitin(_without_home(""), "--store", str(tmp_path / "s"), "where")
    assert named.returncode == 0 and named.stdout.startswith(f"{tmp_path / 's'}\n")
    env = _without_home("", CHITIN_STORE=str(tmp_path / "e"))
    assert _chitin(env, "where").stdout.startswith(f"{tmp_path / 'e'}\n")
    env = _without_home("", XDG_DATA_HOME=str(tmp_path / "data"))
    assert _chitin(env, "where").stdout.startswith(f"{tmp_path / 'data' / 'chitin'}\n")


def test_a_hosts_default_folder_needs_a_home(tmp_path: Path) -> None:
    """With a store named but no home, the host's default folder (~/.claude, …) would
    be taken from the current folder: refused, naming --dir."""
    for host in ("claude-code", "openclaw", "cursor"):
        done = _chitin(_without_home(""), "--store", str(tmp_path / "s"), "hooks", "install",
                       host)  # fmt: skip
        assert done.returncode == 1, done.stderr
        assert done.stderr.strip() == (
            "Error: HOME is not set: name the folder to install into with --dir"
        )
    assert _made(tmp_path) == []


# ------------------------------------------------------------------ stores made by a write

CONTRIBUTE = ["contribute", "--type", "skill", "--claim", "Test it first", "--confidence", "0.8"]


@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_write_to_a_store_whose_folder_does_not_exist_is_refused(
    tmp_path: Path, how: str
) -> None:
    typo = tmp_path / "typo" / "x"
    env = {**os.environ, **({"CHITIN_STORE": str(typo)} if how == "environment" else {})}
    named = ["--store", str(typo)] if how == "option" else []
    done = _chitin(env, *named, *CONTRIBUTE)
    assert done.returncode == 1, done.stderr
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and str(tmp_path / "typo") in said[0], said
    assert f"chitin --store {typo} init" in said[0]
    assert not (tmp_path / "typo").exists()


def test_a_store_made_by_a_write_is_said_once(tmp_path: Path) -> None:
    store = tmp_path / "new-store"
    done = _chitin(dict(os.environ), "--store", str(store), *CONTRIBUTE)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [f"warning: created a new store at {store}"]
    again = _chitin(dict(os.environ), "--store", str(store), "contribute", "--type", "skill",
                    "--claim", "Lint before pushing", "--confidence", "0.8")  # fmt: skip
    assert again.returncode == 0 and again.stderr == ""


def test_the_default_store_is_still_made_by_the_first_write(tmp_path: Path) -> None:
    """A fresh machine has no ~/.local/share: the default store's folders are made."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "fresh" / "share")}
    done = _chitin(env, *CONTRIBUTE)
    assert done.returncode == 0, done.stderr
    default = tmp_path / "fresh" / "share" / "chitin"
    assert done.stderr.splitlines() == [f"warning: created a new store at {default}"]
    assert (default / ".git").is_dir()


def test_init_makes_a_named_store_with_its_folders(tmp_path: Path) -> None:
    deep = tmp_path / "on" / "purpose"
    done = _chitin(dict(os.environ), "--store", str(deep), "init")
    assert done.returncode == 0, done.stderr
    assert (deep / ".git").is_dir()


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["stats"],
        ["get", "x"],
        ["retrieve", "--query", "tests"],
        ["render"],
        ["export"],
        ["history", "x"],
        ["changelog"],
        ["embed-status"],
        ["check"],
        ["where"],
    ],
    ids=lambda args: args[0],
)
def test_reads_of_a_missing_store_make_nothing(tmp_path: Path, args: list[str]) -> None:
    for store in (tmp_path / "typo" / "x", tmp_path / "absent"):
        _chitin(dict(os.environ), "--store", str(store), *args)
        assert not store.exists() and not (tmp_path / "typo").exists(), args
