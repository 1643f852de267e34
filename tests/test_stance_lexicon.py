"""The antonym lexicon as the stance rules read it (chitin.retrieval.lexicon and
stance): general English opposites, found in their inflected forms, counted only
where the two claims otherwise say the same thing (docs/design.md §9e, seventh round)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from bench_modules import BENCH
from conftest import Run

from chitin.resources import asset_path
from chitin.retrieval import stance as stance_module
from chitin.retrieval.forms import inflections
from chitin.retrieval.judgement import CONFLICT, DUPLICATE, NONE, Side, judge
from chitin.retrieval.lexicon import ANTONYMS, DRIFTED
from chitin.retrieval.stance import NEGATORS, opposed_poles, stance


def skill(claim: str) -> Side:
    return Side("skill", claim)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Tighten the timeouts on the payment service",
            "Loosening the timeouts helps the payment service",
        ),
        ("Be stricter about code style in reviews", "Be permissive about code style in reviews"),
        ("Centralise logging in one service", "Distribute logging across the services"),
        ("Load the configuration eagerly at startup", "Load the configuration lazily at startup"),
        ("Water the seedlings frequently", "Water the seedlings infrequently"),
        ("Mia adores surprise parties", "Mia loathes surprise parties"),
        ("Prices were raised this spring", "Prices were lowered this spring"),
    ],
)
def test_opposites_beyond_the_first_lexicon_are_conflicts_in_any_form(
    first: str, second: str
) -> None:
    # The model embeds the two poles close: without the pair, a duplicate by meaning.
    assert judge(skill(first), skill(second), 0.9).kind == CONFLICT
    assert judge(skill(second), skill(first), 0.9).kind == CONFLICT


def test_opposite_poles_about_other_things_stay_apart() -> None:
    strict, lenient = skill("Be strict with types"), skill("Be lenient with late homework")
    assert judge(strict, lenient, 0.3).kind == NONE
    assert judge(strict, lenient, None).kind == NONE  # by words: nothing else shared
    bolts, soil = skill("Tighten the bolts on the bike frame"), skill("Loosen the soil first")
    assert opposed_poles(stance(bolts.claim).poles, stance(soil.claim).poles)  # seen, but
    assert judge(bolts, soil, 0.25).kind == judge(bolts, soil, None).kind == NONE


def test_a_pole_both_claims_take_is_what_they_are_about_not_a_stance() -> None:
    # "early" in both: each claim says more than "morning" or "evening", so the
    # different plants decide (the cosine, under the topic bar), not the poles.
    tomatoes = skill("Water the tomatoes early in the morning")
    lawn = skill("Water the lawn early in the evening")
    assert judge(tomatoes, lawn, 0.6).kind == NONE
    assert judge(skill("Be brief"), skill("Be thorough"), 0.46).kind == CONFLICT


def test_forms_that_mean_something_else_are_no_poles() -> None:
    assert stance("Hardly anyone reads the customer notes lately").poles == frozenset()
    assert stance("Simply ask; it is likely unclear").poles == frozenset({"likely", "unclear"})
    assert stance("Stricter, tightening, busier, bigger, gently").poles == frozenset(
        {"strict", "tighten", "busy", "big", "gentle"}
    )


def test_every_pair_of_the_lexicon_is_read_as_opposed() -> None:
    assert len(ANTONYMS) == len(set(ANTONYMS)) > 600
    for first, second in ANTONYMS:
        assert first != second and (first + second).isalpha() and first.islower()
        if {first, second} & NEGATORS:
            continue  # "everyone/nobody": a negation first
        mine, theirs = stance(first).poles, stance(second).poles
        assert opposed_poles(mine, theirs), (first, second)
    assert "hardly" not in inflections("hard") and "harder" in inflections("hard")
    assert not DRIFTED & {
        form for pair in ANTONYMS for word in pair for form in inflections(word)
    } - {word for pair in ANTONYMS for word in pair}


def test_contribute_reports_an_opposite_as_a_conflict_not_a_duplicate(
    run: Run, add: Any, run_json: Any
) -> None:
    first = add("skill", "Tighten the timeouts on the payment service", 0.8)
    loosen = "Loosen the timeouts on the payment service"
    made = run_json("contribute", "--type", "skill", "--claim", loosen, "--confidence", "0.7")
    assert made["duplicates"] == []
    assert [c["id"] for c in made["conflicts"]] == [first["id"]]
    assert '"loosen" ↔ "tighten"' in made["conflicts"][0]["tensionReason"]
    report = json.loads(run("check", "--format", "json").stdout)
    assert [w["kind"] for w in report["warnings"]] == ["conflict"]
    assert judge(skill("Tighten it"), skill("Tighten it now"), 0.95).kind == DUPLICATE


def test_two_claims_naming_both_ends_compare_and_take_no_side() -> None:
    small = "Small, frequent releases are safer than big, rare ones"
    little = "Shipping little changes often carries less risk than shipping large batches"
    mine, theirs = stance(small).poles, stance(little).poles
    assert {"small", "big"} <= mine and {"little", "large"} <= theirs
    assert opposed_poles(mine, theirs) == []  # small ↔ large and big ↔ little cross
    assert judge(skill(small), skill(little), 0.6).kind != CONFLICT
    assert opposed_poles(frozenset({"big"}), theirs) == [("big", "little")]


def test_the_shipped_table_is_the_one_the_lexicon_makes() -> None:
    shipped = stance_module.parse_lexicon(
        asset_path(stance_module.LEXICON_FORMS).read_text(encoding="utf-8")
    )
    assert shipped == stance_module.build_lexicon(), "run: python scripts/lexicon_forms.py"


def test_an_unreadable_table_is_made_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "assets"
    broken.mkdir()
    (broken / stance_module.LEXICON_FORMS).write_text("= strict stricter\nnot a line\n")
    phrases = asset_path(stance_module.OPPOSITE_PHRASES).read_text(encoding="utf-8")
    (broken / stance_module.OPPOSITE_PHRASES).write_text(phrases, encoding="utf-8")
    monkeypatch.setattr(stance_module, "asset_path", lambda *parts: broken.joinpath(*parts))
    stance_module._lexicon.cache_clear()
    try:
        assert stance_module._lexicon() == stance_module.build_lexicon()
    finally:
        stance_module._lexicon.cache_clear()


def test_topic_alone_is_the_stance_s_topic() -> None:
    """``topic`` (the door ranks its candidates by it) reads exactly what ``stance``
    reads, on every claim and condition of the tuning pairs and on the cues it skips."""
    pairs = yaml.safe_load((BENCH / "dedup" / "pairs.yaml").read_text(encoding="utf-8"))["pairs"]
    texts = {side[key] for pair in pairs for side in (pair["a"], pair["b"]) for key in side}
    texts = {text for text in texts if isinstance(text, str)}
    texts |= {
        "Don't weaken the assertion when a test fails",
        "Prefer tabs over spaces, never the other way",
        "Once you have read it, answer by hand in private",
        "non-urgent tickets wait; urgent ones go first",
        "Keep 3 small commits rather than one large one",
        "",
    }
    assert len(texts) > 300
    for text in texts:
        assert stance_module.topic(text) == stance(text).topic, text
