"""The merge driver: three versions of an insight file in, one out, field by field."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from chitin.cli import cli
from chitin.format.markdown import DEFAULT_LAYOUT, Layout, parse, serialize
from chitin.model import evidence
from chitin.model.insight import Insight, format_timestamp, reinforced_confidence
from chitin.model.merge3 import Side, merge
from chitin.model.ops import reinforced
from chitin.store.merging import merge_texts

T0, T1, T2 = "2026-11-01T10:00:00Z", "2026-11-02T10:00:00Z", "2026-11-03T10:00:00Z"
BASE = Insight(
    id="ask-first-k3f9",
    type="behavioral",
    claim="Ask before deleting files",
    confidence=0.8,
    created=T0,
    updated=T0,
    tags=("files", "safety"),
    provenance="correction",
    reinforcements=2,
    reasoning="Deleted a draft once.",
)
PATH = "insights/behavioral/ask-first-k3f9.md"


def side(insight: Insight, *log: str) -> Side:
    return Side(insight, tuple(log))


def reinforce(insight: Insight, times: int, at: str) -> Insight:
    for _ in range(times):
        insight = reinforced(insight, at)
    return insight


# ---------------------------------------------------------------- fields


@given(st.integers(0, 6), st.integers(0, 6), st.integers(0, 20))
def test_reinforcements_add_up_and_confidence_follows(mine: int, other: int, start: int) -> None:
    base = BASE.with_changes(reinforcements=start)
    ours, theirs = reinforce(base, mine, T1), reinforce(base, other, T2)
    result = merge(side(base), side(ours), side(theirs))
    assert result.insight.reinforcements == start + mine + other
    assert result.insight.confidence == reinforce(base, mine + other, T2).confidence
    assert not result.conflicts


def test_a_confidence_set_by_hand_is_kept_and_reinforced_by_the_other_side() -> None:
    ours = BASE.with_changes(confidence=0.6, updated=T1)
    theirs = reinforce(BASE, 1, T2)
    result = merge(side(BASE), side(ours), side(theirs))
    assert result.insight.confidence == reinforced_confidence(0.6)
    assert result.insight.reinforcements == 3


def test_confidence_set_by_hand_on_both_sides_takes_the_later_decision() -> None:
    ours = BASE.with_changes(confidence=0.6, updated=T2)
    theirs = BASE.with_changes(confidence=0.9, updated=T1)
    assert merge(side(BASE), side(ours), side(theirs)).insight.confidence == 0.6
    assert merge(side(BASE), side(theirs), side(ours)).insight.confidence == 0.6


def test_tags_unite_additions_and_honour_removals() -> None:
    ours = BASE.with_changes(tags=("files", "safety", "cleanup"))
    theirs = BASE.with_changes(tags=("Files", "git"))  # removed "safety", added "git"
    result = merge(side(BASE), side(ours), side(theirs))
    assert result.insight.tags == ("files", "cleanup", "git")


def test_times_take_the_latest_update_and_the_earliest_creation() -> None:
    ours = BASE.with_changes(updated=T2, last_reinforced=T1)
    theirs = BASE.with_changes(updated=T1, last_reinforced=T2, created="2026-10-01T00:00:00Z")
    result = merge(side(BASE), side(ours), side(theirs)).insight
    assert (result.updated, result.last_reinforced) == (T2, T2)
    assert result.created == "2026-10-01T00:00:00Z"


def test_one_sided_changes_win_and_two_sided_ones_conflict() -> None:
    ours = BASE.with_changes(claim="Ask before deleting anything", context="Cleanups")
    theirs = BASE.with_changes(reasoning="Lost a file.", context="Refactors")
    result = merge(side(BASE), side(ours), side(theirs))
    assert result.insight.claim == "Ask before deleting anything"
    assert result.insight.reasoning == "Lost a file."
    assert result.conflicts == ("context",)


def test_the_same_change_on_both_sides_is_no_conflict() -> None:
    changed = BASE.with_changes(claim="Ask first", updated=T1)
    assert not merge(side(BASE), side(changed), side(changed)).conflicts


def test_without_a_base_counts_are_not_doubled() -> None:
    result = merge(None, side(BASE), side(BASE.with_changes(reinforcements=3, confidence=0.81)))
    assert (result.insight.reinforcements, result.insight.confidence) == (3, 0.81)
    assert not result.conflicts


def test_evidence_logs_unite_in_time_order_and_stay_bounded() -> None:
    shared = "2026-11-01T10:00:00Z a@h aaaa"
    mine = [f"2026-11-02T10:00:{n:02d}Z b@h bbb{n % 10}" for n in range(3)]
    other = [f"2026-11-02T10:00:{n:02d}Z c@h ccc{n % 10}" for n in range(30)]
    result = merge(side(BASE, shared), side(BASE, shared, *mine), side(BASE, shared, *other))
    assert len(result.evidence) == evidence.MAX_ENTRIES
    assert list(result.evidence) == sorted(result.evidence)
    assert result.evidence[-1] == other[-1]


# ---------------------------------------------------------------- files


def text(insight: Insight, layout: Layout = DEFAULT_LAYOUT, *log: str) -> str:
    return serialize(insight, layout._replace(evidence=tuple(log)))


def read(merged: str) -> tuple[Insight, Layout]:
    return parse(merged, fallback_id="x", fallback_type="behavioral", fallback_time=T0)


def test_a_clean_file_merge_is_canonical() -> None:
    ours = reinforce(BASE, 1, T1)
    theirs = reinforce(BASE, 1, T2)
    a, b = evidence.entry(T1, "a@h", "aaaa"), evidence.entry(T2, "b@h", "bbbb", "external")
    merged = merge_texts(
        text(BASE), text(ours, DEFAULT_LAYOUT, a), text(theirs, DEFAULT_LAYOUT, b), PATH
    )
    assert merged.conflicts == ()
    insight, layout = read(merged.text)
    assert insight.reinforcements == 4 and layout.evidence == (a, b)
    assert serialize(insight, layout) == merged.text


def test_hand_written_additions_merge_by_lines() -> None:
    base_layout = read(text(BASE))[1]
    ours = text(BASE.with_changes(claim="Ask before deleting any file"))
    extra = Layout(body=(*base_layout.body, ("text", "## Notes\n\nFrom the March cleanup.")))
    theirs = text(reinforce(BASE, 1, T2), extra)
    merged = merge_texts(text(BASE), ours, theirs, PATH)
    assert merged.conflicts == ()
    insight, _ = read(merged.text)
    assert insight.claim == "Ask before deleting any file" and insight.reinforcements == 3
    assert "From the March cleanup." in merged.text


def test_a_claim_changed_on_both_sides_is_marked_for_a_person() -> None:
    ours = reinforce(BASE.with_changes(claim="Ask twice"), 1, T1)
    theirs = reinforce(BASE.with_changes(claim="Never delete"), 1, T2)
    merged = merge_texts(text(BASE), text(ours), text(theirs), PATH)
    assert merged.conflicts == ("claim",)
    assert f"<<<<<<< ours:{PATH}" in merged.text and f">>>>>>> theirs:{PATH}" in merged.text
    assert "reinforcements: 4" in merged.text  # the counts merged even so
    assert merged.text.count("<<<<<<<") == 1


def test_a_file_that_does_not_parse_is_merged_by_lines() -> None:
    broken = "no frontmatter at all\n"
    merged = merge_texts(broken, broken + "ours\n", broken, PATH)
    assert merged == (broken + "ours\n", ())


@pytest.mark.parametrize("conflict", [False, True])
def test_the_command_writes_over_ours_and_exits_by_the_outcome(
    tmp_path: Path, conflict: bool
) -> None:
    claim = "Ask twice" if conflict else BASE.claim
    files = {
        "base": text(BASE),
        "ours": text(reinforce(BASE.with_changes(claim=claim), 1, T1)),
        "theirs": text(reinforce(BASE.with_changes(claim="Never delete"), 1, T2)),
    }
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    args = [str(tmp_path / n) for n in ("base", "ours", "theirs")]
    result = CliRunner().invoke(cli, ["merge-driver", *args, PATH])
    assert result.exit_code == (1 if conflict else 0)
    written = (tmp_path / "ours").read_text()
    assert "reinforcements: 4" in written
    if conflict:
        assert result.stderr.strip() == f"chitin: {PATH}: claim changed on both sides"
    else:
        assert read(written)[0].claim == "Never delete" and result.stderr == ""


def test_an_empty_base_means_both_sides_added_the_file(tmp_path: Path) -> None:
    (tmp_path / "base").write_text("")
    (tmp_path / "ours").write_text(text(BASE))
    (tmp_path / "theirs").write_text(text(BASE.with_changes(reinforcements=3)))
    args = [str(tmp_path / n) for n in ("base", "ours", "theirs")]
    assert CliRunner().invoke(cli, ["merge-driver", *args]).exit_code == 0
    assert read((tmp_path / "ours").read_text())[0].reinforcements == 3


def test_a_merge_too_large_for_an_insight_file_is_left_to_a_person(tmp_path: Path) -> None:
    """Each side is within the limit, both together are not (issue 27): the result
    would never be read again, so OURS stays as it was and git reports a conflict."""
    from chitin.model.bounds import MAX_INSIGHT_BYTES

    half = MAX_INSIGHT_BYTES * 3 // 5
    base = text(BASE)
    ours = base + "\n## Notes\n\n" + "ours: keep the draft\n" * (half // 21)
    theirs = base + "\n## More\n\n" + "theirs: ask again first\n" * (half // 24)
    for name, content in {"base": base, "ours": ours, "theirs": theirs}.items():
        (tmp_path / name).write_text(content)
    args = [str(tmp_path / n) for n in ("base", "ours", "theirs")]
    result = CliRunner().invoke(cli, ["merge-driver", *args, PATH])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"chitin: {PATH}: the merged file would be ")
    assert f"({MAX_INSIGHT_BYTES:,}); resolve it by hand" in result.stderr
    assert (tmp_path / "ours").read_text() == ours


def test_a_missing_version_is_a_usage_error_not_an_internal_one(tmp_path: Path) -> None:
    """Run by hand with a mistyped path: one line naming it, exit 2, not "internal
    error: FileNotFoundError" and exit 3."""
    present = tmp_path / "ours.md"
    present.write_text("---\nid: a\n---\n")
    result = CliRunner().invoke(
        cli, ["merge-driver", str(tmp_path / "base.md"), str(present), str(present)]
    )
    assert result.exit_code == 2, result.output
    assert "base.md" in result.stderr and "does not exist" in result.stderr
    assert "internal error" not in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("line", "bad"),
    [
        ("reinforcements: 2", "reinforcements: 9223372036854775808"),
        ("created: 2026-11-01T10:00:00Z", "created: 10000-01-01T00:00:00Z"),
    ],
)
def test_a_side_out_of_bounds_is_not_merged_into_a_readable_file(
    tmp_path: Path, line: str, bad: str
) -> None:
    """THEIRS holds a count of 2^63 (or a year past 9999), which no reader takes: the
    line merge took it cleanly (exit 0), and git committed a file every command then
    skipped. The bounds hold on this path in too: OURS stays, git reports a conflict,
    and the line names what cannot be read."""
    base = text(BASE)
    assert line in base
    ours = text(BASE.with_changes(tags=("files", "safety", "disk")))
    files = {"base": base, "ours": ours, "theirs": base.replace(line, bad)}
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    args = [str(tmp_path / n) for n in ("base", "ours", "theirs")]
    result = CliRunner().invoke(cli, ["merge-driver", *args, PATH])
    assert result.exit_code == 1, result.output
    assert (tmp_path / "ours").read_text() == ours
    assert result.stderr.startswith(f"chitin: {PATH}: the merged file could not be read: ")
    assert result.stderr.endswith("; resolve it by hand\n") and result.stderr.count("\n") == 1


HAND_MADE = (
    "---\nconfidence: 0.8\ntags:\n- git\n---\n\nSquash fixups\n\n## Reasoning\n\nIt reads.\n"
)


@pytest.mark.parametrize("ours_by_chitin", [False, True])
def test_a_hand_made_file_merged_gets_no_time_from_1970(
    tmp_path: Path, ours_by_chitin: bool
) -> None:
    """A hand-made file may leave out its times (chitin reads its modification time).
    Merged, it was written with created and updated in 1970: it looked decades old to
    quality and decay. A side's real time is kept; with none, the merge's own time."""
    ours = HAND_MADE.replace("0.8", "0.9")
    if ours_by_chitin:  # one machine reinforced it: chitin wrote its times
        ours = ours.replace("- git\n", f"- git\nreinforcements: 1\ncreated: {T1}\nupdated: {T2}\n")
    theirs = HAND_MADE.replace("It reads.", "It reads well.")
    for name, content in {"base": HAND_MADE, "ours": ours, "theirs": theirs}.items():
        (tmp_path / name).write_text(content)
    started = format_timestamp(datetime.now(UTC))
    args = [str(tmp_path / n) for n in ("base", "ours", "theirs")]
    result = CliRunner().invoke(cli, ["merge-driver", *args, "insights/skill/squash.md"])
    assert result.exit_code == 0, result.output
    written = (tmp_path / "ours").read_text()
    insight = read(written)[0]
    assert "1970" not in written and "It reads well." in written and insight.confidence == 0.9
    if ours_by_chitin:
        assert (insight.created, insight.reinforcements) == (T1, 1)
    else:
        assert insight.created >= started
    assert insight.updated >= started
