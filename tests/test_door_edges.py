"""Edges at chitin's doors (fix70a): a mistyped --dir or store path is refused instead
of created, an explicitly empty choice is bad input, a home that is not set names no
default store, and a slug keeps the letters NFKD cannot take apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Run

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
