"""merge and dedupe --apply keep what the folded copy knew (issue 25, "never lose one"):
its context, limitations and source, its hand-added frontmatter keys and body text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import Run, git

GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def file_of(store: Path, insight_id: str) -> Path:
    return next((store / "insights").rglob(f"{insight_id}.md"))


def hand_edit(store: Path, insight_id: str, key: str, notes: str) -> None:
    """A person's frontmatter key and '## Notes' section, committed."""
    path = file_of(store, insight_id)
    front, _, body = path.read_text().partition("\n---\n")
    path.write_text(f"{front}\n{key}\n---\n{body.rstrip()}\n\n## Notes\n\n{notes}\n")
    git(store, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", "by hand")


def copies(add: Any) -> tuple[str, str]:
    keep = add("skill", "Pin versions in CI", 0.9, context="C1")["id"]
    copy = add(
        "skill", "Pin versions in CI.", 0.6, force=True, context="C2", limitations="L2", source="S2"
    )["id"]
    return str(keep), str(copy)


def test_dedupe_apply_keeps_the_copys_texts_keys_and_notes(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    keep, copy = copies(add)
    hand_edit(store, copy, "owner: ana", "Hand note.")
    run("dedupe", "--apply")
    merged = run_json("get", keep)
    assert merged["context"] == "C1\n\nC2"
    assert merged["limitations"] == "L2" and merged["source"] == "S2"
    text = file_of(store, keep).read_text()
    assert "\nowner: ana\n---\n" in text
    assert text.rstrip().endswith("## Notes\n\nHand note.")
    assert run("check").exit_code == 0


def test_a_second_merge_of_the_same_text_adds_nothing(run: Run, add: Any, run_json: Any) -> None:
    keep, copy = copies(add)
    run("merge", copy, keep)
    again = add("skill", "Pin versions in CI!", 0.5, force=True, context="C2", source="S2")
    run("merge", again["id"], keep)
    merged = run_json("get", keep)
    assert merged["context"] == "C1\n\nC2" and merged["source"] == "S2"


def test_the_target_keeps_its_own_keys_and_a_notes_it_already_holds(
    run: Run, add: Any, store: Path
) -> None:
    keep, copy = copies(add)
    hand_edit(store, keep, "owner: ben", "Same note.")
    hand_edit(store, copy, "owner: ana", "Same note.")
    run("merge", copy, keep)
    text = file_of(store, keep).read_text()
    assert "owner: ben" in text and "owner: ana" not in text
    assert text.count("## Notes") == 1


def test_a_credential_in_the_copys_notes_still_stops_the_merge(
    run: Run, add: Any, store: Path
) -> None:
    keep, copy = copies(add)
    hand_edit(store, copy, "owner: ana", f"token {GITHUB}")
    head = git(store, "rev-parse", "HEAD")
    refused = run("merge", copy, keep, expect=1)
    assert "credential" in refused.stderr and "Traceback" not in refused.output
    assert git(store, "rev-parse", "HEAD") == head
    run("merge", copy, keep, "--allow-secret")
    assert GITHUB in file_of(store, keep).read_text()
