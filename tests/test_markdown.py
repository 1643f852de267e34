"""The file format: deterministic, lossless for hand additions, strict about bad values."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Run, git
from hypothesis import given, settings
from hypothesis import strategies as st

from chitin.errors import ValidationError
from chitin.format.frontmatter import yaml_scalar
from chitin.format.markdown import parse, serialize
from chitin.model.insight import PROVENANCES, TYPES, Insight, check_claim
from chitin.resources import data_path

NOW = "2026-11-29T12:00:00Z"


def read(text: str) -> Insight:
    return parse(text, fallback_id="fallback", fallback_type=None, fallback_time=NOW)[0]


def sample(**changes: object) -> Insight:
    base = Insight(
        id="tdd-red-green-k3f9",
        type="skill",
        claim="Write the failing test first.",
        confidence=0.9,
        created=NOW,
        updated=NOW,
        tags=("tdd", "testing"),
        provenance="observation",
        reasoning="A test that never failed proves nothing.",
    )
    return base._replace(**changes)


def test_serialized_form_is_the_documented_one() -> None:
    text = serialize(sample(source="pairing session", last_reinforced="2026-11-30T08:00:00Z"))
    assert text == (
        "---\n"
        "id: tdd-red-green-k3f9\n"
        "type: skill\n"
        "confidence: 0.9\n"
        "tags:\n- tdd\n- testing\n"
        "provenance: observation\n"
        "source: pairing session\n"
        "reinforcements: 0\n"
        "created: 2026-11-29T12:00:00Z\n"
        "updated: 2026-11-29T12:00:00Z\n"
        "last_reinforced: 2026-11-30T08:00:00Z\n"
        "---\n\n"
        "Write the failing test first.\n\n"
        "## Reasoning\n\nA test that never failed proves nothing.\n"
    )


def test_trigger_keys_come_in_the_pinned_order() -> None:
    trigger = sample(type="trigger", condition="a test fails", avoid=True)
    keys = [line.split(":")[0] for line in serialize(trigger).split("---")[1].splitlines()]
    keys = [k for k in keys if k and not k.startswith("-")]
    assert keys == [
        "id",
        "type",
        "confidence",
        "tags",
        "provenance",
        "condition",
        "avoid",
        "reinforcements",
        "created",
        "updated",
    ]


@pytest.mark.parametrize("path", sorted(data_path("insights").rglob("*.md")), ids=str)
def test_every_starter_file_round_trips_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    insight, layout = parse(text, fallback_id=path.stem, fallback_type=None, fallback_time=NOW)
    assert serialize(insight, layout) == text
    assert insight.id == path.stem and insight.type == path.parent.name


def test_starter_insights_cover_every_type() -> None:
    files = list(data_path("insights").rglob("*.md"))
    assert 12 <= len(files) <= 15
    assert {read(f.read_text()).type for f in files} == set(TYPES)


def test_hand_added_keys_and_text_survive_a_rewrite() -> None:
    original = serialize(sample())
    edited = original.replace(
        "reinforcements: 0\n", "reinforcements: 0\nowner: ana  # who taught me\nlinks:\n  - a\n"
    )
    edited += "\nA note a person added.\n\n## Examples\n\n- one\n- two\n"
    insight, layout = parse(edited, fallback_id="x", fallback_type=None, fallback_time=NOW)
    rewritten = serialize(insight._replace(confidence=0.95, context="In code review."), layout)
    assert "owner: ana  # who taught me\nlinks:\n  - a\n---" in rewritten
    assert "## Examples\n\n- one\n- two" in rewritten
    assert "A note a person added." in rewritten
    again, layout2 = parse(rewritten, fallback_id="x", fallback_type=None, fallback_time=NOW)
    assert again.confidence == 0.95 and again.context == "In code review."
    assert serialize(again, layout2) == rewritten


@pytest.mark.parametrize(
    ("added", "kept"),
    [
        ("? owner\n: ana\n", "? owner\n: ana\n---"),  # YAML's explicit key, a key of one's own
        ("? source\n: a review\n", "source: a review\n"),  # a key chitin writes its own way
        ("? 'why: now'\n: because\n", "? 'why: now'\n: because\n---"),  # a colon in the key
    ],
    ids=["own", "known", "quoted"],
)
def test_an_explicit_yaml_key_survives_a_rewrite_whole(added: str, kept: str) -> None:
    """`? key` on one line and `: value` on the next: the key's line once went with the
    key above it and its value stayed alone, so the rewrite (committed) did not parse."""
    edited = serialize(sample()).replace("---\n\n", added + "---\n\n", 1)
    insight, layout = parse(edited, fallback_id="x", fallback_type=None, fallback_time=NOW)
    rewritten = serialize(insight._replace(confidence=0.95), layout)
    assert kept in rewritten
    assert rewritten.count(added.split(": ")[-1]) == 1, rewritten
    assert read(rewritten).confidence == 0.95


def test_a_section_heading_inside_a_field_is_escaped() -> None:
    insight = sample(reasoning="line one\n## not a heading\nline three")
    text = serialize(insight)
    assert "\\## not a heading" in text
    assert read(text).reasoning == "line one\n## not a heading\nline three"


def test_an_empty_section_then_one_of_the_same_title_reads_the_same_after_a_rewrite(
    store: Path, run: Run, run_json: Callable[..., Any], add: Callable[..., dict[str, Any]]
) -> None:
    """A hand edit that left an empty '## Reasoning' above a second one with text (found
    by fuzzing, qa115): the reader took the empty one and showed no reasoning, and the
    next rewrite, which leaves an empty section out, made the second one the reasoning."""
    run("init")
    made = add("skill", "Reproduce a bug first")
    path = store / "insights" / "skill" / f"{made['id']}.md"
    path.write_text(
        path.read_text() + "\n## Reasoning\n\n## Reasoning\n\nA fix unseen is a guess.\n"
    )
    git(store, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", "by hand")
    before = run_json("get", made["id"])
    run("reinforce", made["id"])
    after = run_json("get", made["id"])
    assert before.get("reasoning") == after.get("reasoning") == "A fix unseen is a guess."


def test_a_hand_written_file_needs_only_type_confidence_and_claim() -> None:
    insight = read("---\ntype: principle\nconfidence: 0.7\n---\n\nBe honest.\n")
    assert (insight.id, insight.claim, insight.created, insight.updated) == (
        "fallback",
        "Be honest.",
        NOW,
        NOW,
    )


def test_crlf_and_bom_are_read() -> None:
    text = "\ufeff---\r\ntype: skill\r\nconfidence: 0.5\r\n---\r\n\r\nUse tabs.\r\n"
    assert read(text).claim == "Use tabs."


def test_timestamps_are_normalized_to_utc() -> None:
    text = serialize(sample()).replace(
        "created: 2026-11-29T12:00:00Z", "created: 2026-11-29 14:00:00+02:00"
    )
    assert read(text).created == "2026-11-29T12:00:00Z"


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda t: t.replace("type: skill", "type: hobby"), "type"),
        (lambda t: t.replace("confidence: 0.9", "confidence: 1.5"), "confidence"),
        (lambda t: t.replace("confidence: 0.9", "confidence: high"), "confidence"),
        (lambda t: t.replace("provenance: observation", "provenance: rumour"), "provenance"),
        (lambda t: t.replace("tags:\n", "tags: [unclosed\n"), "frontmatter"),
        (lambda t: t.replace("Write the failing test first.\n", ""), "claim"),
        (lambda t: t.replace("reinforcements: 0", "reinforcements: -2"), "reinforcements"),
        (lambda t: t.replace("created: 2026-11-29T12:00:00Z", "created: yesterday"), "created"),
        (lambda t: t.replace("id: tdd-red-green-k3f9", "id: ../../etc/passwd"), "id"),
        (lambda t: t[4:], "frontmatter"),
    ],
)
def test_bad_values_are_named(edit: object, field: str) -> None:
    text = edit(serialize(sample()))  # type: ignore[operator]
    with pytest.raises(ValidationError) as caught:
        read(text)
    assert caught.value.field == field


def test_a_trigger_file_without_condition_is_refused() -> None:
    text = serialize(sample(type="trigger", condition="x")).replace("condition: x\n", "")
    with pytest.raises(ValidationError, match="trigger needs a condition"):
        read(text)


# ------------------------------------------------------------------ properties

_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(
    lambda s: s.strip()
)


@given(_text)
def test_any_text_survives_as_a_yaml_scalar(value: str) -> None:
    assert yaml.safe_load(f"key: {yaml_scalar(value)}\n") == {"key": value}


_line = (
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30)
    .map(lambda s: " ".join(s.split()))
    .filter(bool)
)


def _valid_claim(text: str) -> bool:
    """A claim must show something (not only format characters or combining marks)."""
    try:
        check_claim(text)
    except ValidationError:
        return False
    return True


@st.composite
def insights(draw: st.DrawFn) -> Insight:
    kind = draw(st.sampled_from(TYPES))
    condition = draw(_line) if kind == "trigger" else None
    optional = st.none() | _line
    return Insight(
        id=draw(st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)),
        type=kind,
        claim=draw(_line.filter(_valid_claim)),
        confidence=draw(st.floats(0, 1).map(lambda c: round(c, 6))),
        created=NOW,
        updated="2026-11-30T01:02:03Z",
        # A tag holds no comma: a reader splits a text at its commas, as --tags does.
        tags=tuple(
            dict.fromkeys(
                t.lower() for t in draw(st.lists(_line.filter(lambda t: "," not in t), max_size=3))
            )
        ),
        provenance=draw(st.none() | st.sampled_from(PROVENANCES)),
        source=draw(optional),
        condition=condition,
        avoid=draw(st.booleans()) if kind == "trigger" else False,
        reinforcements=draw(st.integers(0, 500)),
        reasoning=draw(optional),
        context=draw(optional),
        limitations=draw(optional),
    )


@settings(max_examples=150, deadline=None)
@given(insights())
def test_parse_inverts_serialize(insight: Insight) -> None:
    text = serialize(insight)
    back, layout = parse(text, fallback_id="x", fallback_type=None, fallback_time=NOW)
    assert back == insight
    assert serialize(back, layout) == text


# ------------------------------------------------------------------ the fast reader


def _as_yaml_reads(front: str) -> object:
    from chitin.model.insight import format_timestamp

    data = yaml.safe_load(front)
    return {k: format_timestamp(v) if hasattr(v, "tzinfo") else v for k, v in data.items()}


@settings(max_examples=200, deadline=None)
@given(insights())
def test_the_fast_reader_agrees_with_yaml(insight: Insight) -> None:
    from chitin.format.frontmatter import _read_canonical

    front = serialize(insight).split("---\n")[1]
    fast = _read_canonical(front)
    if fast is not None:
        assert fast == _as_yaml_reads(front)


@settings(max_examples=300, deadline=None)
@given(_text)
def test_the_fast_reader_reads_text_as_yaml_does_or_declines(value: str) -> None:
    from chitin.format.frontmatter import _read_canonical

    for line in (f"source: {yaml_scalar(value)}", f"source: {value}", f"tags:\n- {value}"):
        fast = _read_canonical(line)
        if fast is not None:
            assert fast == yaml.safe_load(line)


def test_the_fast_reader_takes_canonical_files_and_declines_the_rest() -> None:
    from chitin.format.frontmatter import _read_canonical

    front = serialize(sample(source="a pairing session")).split("---\n")[1]
    assert _read_canonical(front) == _as_yaml_reads(front)
    for odd in (
        "owner: ana",
        "id: 123",
        "source: yes",
        "source: 'quoted'",
        "# comment",
        "confidence: 01",
        "reinforcements: 010",
        "created: 2026-11-29",
        "tags: [a, b]",
        "id: a\nid: b",
        "source: x  # note",
    ):
        assert _read_canonical(odd) is None, odd
