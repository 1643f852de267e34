"""Pure rules: validation, ids, reinforcement, update and merge."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chitin.errors import ValidationError
from chitin.model import ids, ops
from chitin.model import insight as insight_module
from chitin.model.ids import check_id, new_id, random_text, slugify
from chitin.model.insight import (
    check_confidence,
    js_number,
    parse_tags,
    parse_timestamp,
    reinforced_confidence,
)

NOW = "2026-11-29T12:00:00Z"
LATER = "2026-12-01T08:30:00Z"


def make(**fields: object) -> ops.Insight:  # type: ignore[name-defined]
    base = {"type": "skill", "claim": "Write the failing test first", "confidence": 0.8}
    return ops.new_insight({**base, **fields}, "write-the-failing-test-k3f9", NOW)


# ------------------------------------------------------------------ ids


def test_slug_keeps_the_first_words_within_32_characters() -> None:
    assert slugify("TDD: red, green, refactor cycle works best") == "tdd-red-green-refactor-cycle"
    assert slugify("Don't be verbose with the boss") == "dont-be-verbose-with-the-boss"
    assert slugify("Café ünïcode") == "cafe-unicode"
    assert slugify("!!!") == "insight"


def test_new_id_is_slug_plus_suffix_and_avoids_taken_ids() -> None:
    tokens = iter(["aaaa", "bbbb"])
    taken = {"use-git-aaaa"}
    assert new_id("Use git", taken.__contains__, lambda: next(tokens)) == "use-git-bbbb"


def test_random_text_draws_again_the_bytes_that_would_favour_some_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """256 = 3 * 85 + 1: byte 255 would make "a" likelier than "b" and "c"; it is drawn
    again, and every other byte maps to one character."""
    draws = iter([bytes([255, 0, 1, 2, 255, 4]), bytes([5, 255, 7, 9])])
    monkeypatch.setattr(ids.os, "urandom", lambda size: next(draws))
    assert random_text("abc", 3) == "abc"
    assert random_text("abc", 3) == "cba"


def test_random_text_is_of_the_alphabet_and_even() -> None:
    drawn = random_text("abc", 30_000)
    assert len(drawn) == 30_000
    assert set(drawn) == set("abc")
    # 10,000 expected each; 5 standard deviations (~82) either way is far inside this
    assert all(9_000 < drawn.count(c) < 11_000 for c in "abc")


def test_a_contribute_loads_no_random_module_and_no_diff(tmp_path: Path) -> None:
    """An id's suffix comes from os.urandom (secrets would load base64, hmac and
    random); the field diff is an update's alone; shutil (bz2, lzma) a sync's."""
    store = tmp_path / "store"
    subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), "init"],
        check=True,
        capture_output=True,
    )
    (store / "chitin.yaml").write_text("embedding:\n  provider: none\n")
    code = (
        "import sys; from chitin.cli import cli\n"
        f"sys.argv = ['chitin', '--store', {str(store)!r}, 'contribute', '--type', 'skill',"
        " '--claim', 'Write the failing test first', '--confidence', '0.8']\n"
        "try: cli.main()\nexcept SystemExit: pass\n"
        "print([m for m in ('secrets', 'hmac', 'random', 'chitin.model.diff', 'shutil')"
        " if m in sys.modules])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "Contributed" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("text", ["a\x07b", "\x7f", "tab\tok\rno", "é\x07", "é\x7f"])
def test_ascii_and_other_text_refuse_the_same_control_characters(text: str) -> None:
    char = next(c for c in text if c not in "\tabéknot")
    with pytest.raises(ValidationError, match=f"found U\\+{ord(char):04X}"):
        insight_module.check_text("claim", text)


def test_ascii_text_is_checked_without_compiling_the_whole_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(insight_module, "_FORBIDDEN", None)
    assert insight_module.check_text("claim", "plain\ttext\r\nhere") == "plain\ttext\nhere"
    assert insight_module._FORBIDDEN is None  # ~3 ms to compile, for text beyond ASCII only
    assert insight_module.check_text("claim", "café\r\n") == "café\n"
    assert insight_module._FORBIDDEN is not None


@pytest.mark.parametrize("bad", ["", "..", "a/b", "a\\b", "../x", "x/../y", "-x", "a..b", "é"])
def test_ids_cannot_leave_the_store(bad: str) -> None:
    with pytest.raises(ValidationError, match="invalid id"):
        check_id(bad)


def test_uuid_ids_from_chitin_1_are_valid() -> None:
    assert check_id("da70590d-4444-4ff0-9a63-64bdad2b36fb")


# ------------------------------------------------------------------ values


@pytest.mark.parametrize("value", ["abc", "", "nan", "inf", "0.5_0", "١", True, None, [0.5]])
def test_confidence_must_be_a_number(value: object) -> None:
    with pytest.raises(ValidationError, match="number from 0 to 1"):
        check_confidence(value)


@pytest.mark.parametrize("value", ["1.5", -0.1, "-1", float("inf")])
def test_confidence_must_be_between_0_and_1(value: object) -> None:
    with pytest.raises(ValidationError, match="between 0 and 1"):
        check_confidence(value)


def test_tags_are_trimmed_and_deduplicated_without_empty_pieces() -> None:
    assert parse_tags(" a, b ,,c, A") == ("a", "b", "c")
    assert parse_tags(["x", " y "]) == ("x", "y")


def test_legacy_and_offset_timestamps_are_read_as_utc() -> None:
    assert parse_timestamp("t", "2026-11-29 12:56:44").isoformat() == "2026-11-29T12:56:44+00:00"
    assert parse_timestamp("t", "2026-11-29T14:00:00+02:00").hour == 12


def test_js_number_prints_like_javascript() -> None:
    assert [js_number(v) for v in (1.0, 0.9, 0.905, 3)] == ["1", "0.9", "0.905", "3"]


# ------------------------------------------------------------------ contribute


def test_contribute_normalizes_the_claim_and_requires_fields() -> None:
    insight = make(claim="  two\n lines  ", tags="a,b", provenance="")
    assert (insight.claim, insight.tags, insight.provenance) == ("two lines", ("a", "b"), None)
    for missing in ("type", "claim", "confidence"):
        with pytest.raises(ValidationError, match=f"{missing} is required"):
            ops.new_insight(
                {
                    k: v
                    for k, v in {"type": "skill", "claim": "c", "confidence": 1}.items()
                    if k != missing
                },
                "x",
                NOW,
            )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"type": "hobby"}, "invalid type 'hobby' \\(allowed: behavioral, personality"),
        ({"provenance": "rumour"}, "allowed: directive, observation, social"),
        ({"claim": "   "}, "claim must be a non-empty text"),
        ({"type": "trigger"}, "a trigger needs a condition"),
        ({"condition": "when x"}, "only to triggers"),
        ({"avoid": "yes"}, "avoid must be true or false"),
        ({"colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_contribute_refuses_bad_fields(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make(**fields)


# ------------------------------------------------------------------ reinforce


def test_reinforcement_follows_the_original_curve_without_float_noise() -> None:
    assert reinforced_confidence(0.8) == 0.81
    assert reinforced_confidence(0.81) == 0.8195
    assert reinforced_confidence(0.905) == 0.90975
    assert reinforced_confidence(1.0) == 1.0
    value = 0.5
    for _ in range(20):
        value = reinforced_confidence(value)
    assert 0.8 < value < 1


def test_reinforced_moves_count_and_times() -> None:
    after = ops.reinforced(make(), LATER)
    assert (after.reinforcements, after.confidence, after.last_reinforced, after.updated) == (
        1,
        0.81,
        LATER,
        LATER,
    )
    assert after.created == NOW


# ------------------------------------------------------------------ update


def test_update_clears_with_empty_text_and_keeps_updated_when_nothing_changes() -> None:
    insight = make(reasoning="because", tags="a")
    same, _ = ops.updated_insight(insight, {"claim": "Write the failing test first"}, LATER)
    assert same == insight and same.updated == NOW
    cleared, _ = ops.updated_insight(insight, {"reasoning": "", "tags": ""}, LATER)
    assert (cleared.reasoning, cleared.tags, cleared.updated) == (None, (), LATER)


def test_update_to_trigger_needs_a_condition_and_leaving_trigger_drops_it() -> None:
    with pytest.raises(ValidationError, match="needs a condition"):
        ops.updated_insight(make(), {"type": "trigger"}, LATER)
    trigger, _ = ops.updated_insight(
        make(), {"type": "trigger", "condition": "a bug", "avoid": True}, LATER
    )
    back, notes = ops.updated_insight(trigger, {"type": "skill"}, LATER)
    assert (back.condition, back.avoid) == (None, False)
    assert notes == ["condition and avoid dropped: a skill insight has neither"]
    with pytest.raises(ValidationError, match="only to triggers"):
        ops.updated_insight(make(), {"condition": "when x"}, LATER)


def test_update_refuses_empty_claim_and_bad_confidence() -> None:
    with pytest.raises(ValidationError, match="claim"):
        ops.updated_insight(make(), {"claim": ""}, LATER)
    with pytest.raises(ValidationError, match="confidence"):
        ops.updated_insight(make(), {"confidence": "2"}, LATER)


# ------------------------------------------------------------------ merge


def test_merge_follows_the_original_rules() -> None:
    target = make(claim="Target claim", confidence=0.8, tags="a,b", reasoning="TR")
    source = ops.reinforced(
        ops.new_insight(
            {
                "type": "behavioral",
                "claim": "Source",
                "confidence": 0.9,
                "tags": "b,c",
                "reasoning": "SR",
                "context": "SC",
                "provenance": "social",
            },
            "source-1",
            NOW,
        ),
        NOW,
    )
    result = ops.merged(source, target, None, LATER)
    assert result.confidence == 0.905
    assert result.tags == ("a", "b", "c")
    assert result.reinforcements == 1
    assert result.reasoning == "TR; SR"
    # what the target lacks is the source's (1.4.5 dropped it: docs/compatibility.md)
    assert (result.claim, result.context, result.provenance, result.type) == (
        "Target claim",
        "SC",
        "social",
        "skill",
    )
    again = ops.merged(source, result, None, LATER)  # a second merge adds no text twice
    assert (again.reasoning, again.context) == ("TR; SR", "SC")
    assert ops.merged(source, target, "New claim", LATER).claim == "New claim"


def test_merge_with_itself_is_refused() -> None:
    insight = make()
    with pytest.raises(ValidationError, match="Cannot merge an insight with itself"):
        ops.merged(insight, insight, None, LATER)
