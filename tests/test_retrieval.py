"""The pure parts of retrieval: context, decay, scoring, ranking and budgets."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from bench_modules import bench_module

from chitin.errors import ValidationError
from chitin.model.insight import TYPES, Insight
from chitin.render.budget import estimate_tokens, marshal, omission_note, pack
from chitin.retrieval.context import detect_category
from chitin.retrieval.retrieve import rank
from chitin.retrieval.scoring import (
    ORIGINAL_SHAPE,
    RELEVANCE_HALVING,
    Settings,
    decay_factor,
    score,
    strength,
)

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def make(claim: str = "A claim", **fields: object) -> Insight:
    base = Insight(
        id=claim.lower().replace(" ", "-")[:20],
        type="skill",
        claim=claim,
        confidence=0.8,
        created="2026-11-29T12:00:00Z",
        updated="2026-11-29T12:00:00Z",
    )
    return base._replace(**fields)


# ------------------------------------------------------------------ context


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("I need to write a function that handles API errors", "coding"),
        ("Let me fix the TypeScript build and push to git", "coding"),
        ("How should I respond to this message from the team?", "communication"),
        ("Is it right to share this private information?", "ethical"),
        ("Write me a fun story about a lobster", "creative"),
        ("hello", "general"),
        ("", "general"),
        ("working on a task for boss", "communication"),
        ("sub-agent task execution", "general"),  # "task" is not "ask" any more
        ("a directory of client notes", "communication"),  # no "direct", "lie" or "cli"
        ("fixing failing tests", "coding"),  # plural and verb endings still count
        ("still debugging the login", "coding"),  # a doubled consonant: "debug"
        ("run ruff before committing", "coding"),
        ("chatting with the team", "communication"),
        ("my replies missed the point", "communication"),  # y that became i: "reply"
        ("N+1 queries on a page", "coding"),
        ("passing the ball", "general"),  # "pass" keeps its two s: no "pas"
    ],
)
def test_context_detection_matches_whole_words(text: str, category: str) -> None:
    assert detect_category(text) == category


# ------------------------------------------------------------------ decay


@pytest.mark.parametrize(
    ("provenance", "days", "expected"),
    [
        ("social", 30, 0.5),
        ("social", 60, 0.25),
        ("reflection", 90, 0.5),
        ("observation", 180, 0.5),
        ("correction", 365, 0.5),
        ("directive", 900, 1.0),
        (None, 900, 1.0),
    ],
)
def test_decay_follows_the_provenance_half_lives(
    provenance: str | None, days: int, expected: float
) -> None:
    created = datetime.fromtimestamp(NOW.timestamp() - days * 86400, tz=UTC)
    insight = make(provenance=provenance, created=created.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert decay_factor(insight, NOW, Settings().half_lives) == pytest.approx(expected)


def test_decay_runs_from_the_last_reinforcement_and_never_exceeds_one() -> None:
    old = make(provenance="social", created="2025-01-01T00:00:00Z")
    assert decay_factor(old, NOW, Settings().half_lives) < 0.01
    refreshed = old._replace(last_reinforced="2026-11-29T12:00:00Z")
    assert decay_factor(refreshed, NOW, Settings().half_lives) == 1.0
    future = old._replace(created="2027-06-01T00:00:00Z")
    assert decay_factor(future, NOW, Settings().half_lives) == 1.0


# ------------------------------------------------------------------ scoring


def test_the_original_shape_is_the_original_formula() -> None:
    insight = make(
        confidence=0.9, reinforcements=2, provenance="social", created="2026-10-30T12:00:00Z"
    )
    settings = Settings(shape=ORIGINAL_SHAPE)
    factors = score(insight, 1.0, "coding", NOW, settings)
    assert factors.score == pytest.approx(1.0 * 0.9 * 2.0 * 1.8 * 0.5)


def days_ago(days: float) -> str:
    moment = datetime.fromtimestamp(NOW.timestamp() - days * 86400, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize(("provenance", "half_life"), [("social", 30), ("observation", 180)])
def test_the_half_life_means_what_it_says_in_the_final_score(
    provenance: str, half_life: int
) -> None:
    """Undamped: an insight one half-life old scores half of an identical fresh one,
    four half-lives old a sixteenth, whatever the other factors are."""
    fresh = make(provenance=provenance, created=days_ago(0), confidence=0.7, reinforcements=3)
    settings = Settings()
    for age, share in [(half_life, 0.5), (4 * half_life, 1 / 16)]:
        old = fresh._replace(created=days_ago(age))
        for match in (1.0, 0.6):
            ratio = score(old, match, "coding", NOW, settings).score / (
                score(fresh, match, "coding", NOW, settings).score
            )
            assert ratio == pytest.approx(share, rel=1e-6)
    configured = Settings.from_config({"half_lives": {provenance: 10}})
    ten_days = fresh._replace(created=days_ago(10))
    assert score(ten_days, 1.0, "general", NOW, configured).decay == pytest.approx(0.5)


def test_a_reinforcement_renews_an_insight_and_a_stale_one_fades() -> None:
    stale = make(provenance="social", created=days_ago(120), reinforcements=1)
    renewed = stale._replace(last_reinforced=days_ago(0))
    settings = Settings()
    assert score(renewed, 1.0, "general", NOW, settings).decay == 1.0
    assert score(stale, 1.0, "general", NOW, settings).decay == pytest.approx(1 / 16)


def test_relevance_leads_and_the_factors_decide_between_equals() -> None:
    """Each RELEVANCE_HALVING below the best match halves a score, as a half-life does."""
    strong = make("strong", confidence=0.95, reinforcements=12, provenance="directive")
    weak = make("weak", confidence=0.5, provenance="social", created=days_ago(30))
    settings = Settings()
    assert score(strong, 1.0, "general", NOW, settings).relevance == 1.0
    assert score(strong, 1 - RELEVANCE_HALVING, "general", NOW, settings).relevance == (
        pytest.approx(0.5)
    )
    assert score(weak, 1.0, "coding", NOW, settings).score > (
        score(strong, 0.8, "coding", NOW, settings).score
    )
    assert score(strong, 1.0, "coding", NOW, settings).score > (
        score(weak, 1.0, "coding", NOW, settings).score
    )


def test_settings_read_overrides_and_refuse_bad_ones() -> None:
    settings = Settings.from_config(
        {
            "half_lives": {"social": None},
            "type_boosts": {"coding": {"skill": 3}},
            "relevance_weights": {"claim": 9},
        }
    )
    assert settings.half_lives["social"] is None and settings.half_lives["reflection"] == 90
    assert settings.type_boosts["coding"]["skill"] == 3.0
    assert settings.relevance_weights["claim"] == 9.0
    for bad, message in [
        ({"half_lives": {"rumour": 3}}, "unknown provenance 'rumour'"),
        ({"half_lives": {"social": -1}}, "must be a positive number"),
        ({"type_boosts": {"cooking": {}}}, "unknown category 'cooking'"),
        ({"relevance_weights": {"title": 1}}, "unknown key 'title'"),
        # 0 is allowed (it turns a part off): the error says so (fix136)
        ({"relevance_weights": {"tags": -1}}, "tags must be a finite number of 0 or more, got -1"),
        ({"type_boosts": {"coding": {"skill": -2}}}, "skill must be a finite number of 0 or more"),
    ]:
        with pytest.raises(ValidationError, match=message):
            Settings.from_config(bad)
    zero = Settings.from_config(
        {"relevance_weights": {"tags": 0}, "type_boosts": {"coding": {"skill": 0}}}
    )
    assert zero.relevance_weights["tags"] == 0.0 and zero.type_boosts["coding"]["skill"] == 0.0


# ------------------------------------------------------------------ ranking


def by_type(insights: list[Insight], settings: Settings | None = None):  # type: ignore[no-untyped-def]
    """``Cache.strongest`` for one type at a time, as ``rank`` asks it."""
    settings = settings or Settings()

    def strongest(kind: str) -> list[tuple[float, Insight]]:
        return sorted(
            ((strength(i, "general", NOW, settings).score, i) for i in insights if i.type == kind),
            key=lambda pair: -pair[0],
        )

    return strongest


def test_matches_rank_first_and_the_strongest_others_fill_the_result() -> None:
    a, b = make("rebase before pushing"), make("squash fixups on review", confidence=0.5)
    fillers = [
        make(claim, confidence=0.5 + n / 10, type="principle")
        for n, claim in enumerate(("say so early", "check facts", "own mistakes", "ask once"))
    ]
    ranked = rank(
        [(8.0, a), (4.0, b)],
        by_type(fillers),
        category="general",
        now=NOW,
        settings=Settings(),
        max_results=4,
    )
    assert [r.insight.claim for r in ranked] == [
        "rebase before pushing",
        "squash fixups on review",
        "ask once",
        "own mistakes",
    ]
    assert [r.matched for r in ranked] == [True, True, False, False]
    assert ranked[0].factors.match == 1.0 and ranked[1].factors.match == 0.5
    assert ranked[2].score == 0.0 and ranked[2].factors.score > 0


def test_only_the_types_that_hold_whatever_the_task_fill_in_their_order() -> None:
    """Filler is principle, then personality, then behavioral: never the strongest skill
    or trigger that the query does not touch, however strong (issue 24)."""
    stored = [
        make("a strong skill", confidence=0.99),
        make("a strong trigger", confidence=0.99, type="trigger"),
        make("a relational one", confidence=0.99, type="relational"),
        make("be curious", confidence=0.6, type="personality"),
        make("check the facts", confidence=0.7, type="behavioral"),
        make("say what you verified", confidence=0.5, type="principle"),
    ]
    ranked = rank(
        [], by_type(stored), category="general", now=NOW, settings=Settings(), max_results=15
    )
    assert [r.insight.claim for r in ranked] == [
        "say what you verified",
        "be curious",
        "check the facts",
    ]
    assert not any(r.matched for r in ranked)


def test_a_filter_that_allows_no_filling_type_fills_with_what_it_asked_for() -> None:
    stored = [make("a skill"), make("a principle", type="principle")]
    ranked = rank(
        [],
        by_type(stored),
        category="general",
        now=NOW,
        settings=Settings(),
        max_results=5,
        allowed=("skill",),
    )
    assert [r.insight.claim for r in ranked] == ["a skill"]


def test_without_a_query_every_type_fills_the_filling_ones_first() -> None:
    """fix136: with no query no insight is unrelated; a store of skills alone rendered
    an empty personality. Every type fills, principle, personality, behavioral first."""
    stored = [
        make("a strong skill", confidence=0.99),
        make("a strong trigger", confidence=0.99, type="trigger"),
        make("a relational one", confidence=0.99, type="relational"),
        make("say what you verified", confidence=0.5, type="principle"),
    ]
    ranked = rank(
        [], by_type(stored), category="general", now=NOW, settings=Settings(), max_results=15,
        allowed=TYPES, queried=False,
    )  # fmt: skip
    assert [r.insight.claim for r in ranked] == [
        "say what you verified",
        "a relational one",
        "a strong skill",
        "a strong trigger",
    ]
    assert not any(r.matched for r in ranked)
    few = rank(
        [], by_type(stored), category="general", now=NOW, settings=Settings(), max_results=2,
        allowed=TYPES, queried=False,
    )  # fmt: skip
    assert [r.insight.claim for r in few] == ["say what you verified", "a relational one"]


def test_a_filter_fills_with_every_type_it_asked_for_filling_ones_first() -> None:
    """fix130: ``--type skill,principle`` on a store of skills only filled with the
    principles it allowed (none) and said nothing; the skills asked for fill after them."""
    stored = [make("a skill"), make("a trigger", type="trigger")]
    allowed = ("skill", "principle")
    ranked = rank(
        [], by_type(stored), category="general", now=NOW, settings=Settings(), max_results=5,
        allowed=allowed,
    )  # fmt: skip
    assert [r.insight.claim for r in ranked] == ["a skill"]
    stored.append(make("a principle", type="principle"))
    ranked = rank(
        [], by_type(stored), category="general", now=NOW, settings=Settings(), max_results=5,
        allowed=allowed,
    )  # fmt: skip
    assert [r.insight.claim for r in ranked] == ["a principle", "a skill"]


def test_a_weak_match_never_reads_as_a_score_of_0() -> None:
    """Relevance halves every 0.023 of match below the best: a weak match scores
    1e-12, and six decimals would print it as 0, the fillers' score (issue 24)."""
    from chitin.render.shapes import score_number

    assert [score_number(s) for s in (1.0234567, 0.000392, 9.0312e-13, 0.0)] == [
        1.023457,
        0.000392,
        9.03e-13,
        0.0,
    ]


def test_candidates_of_no_relevance_match_nothing_and_fill_instead() -> None:
    """Every candidate at relevance 0 (a blend of nothing) once divided by a top of 0."""
    a, b = make("candidate a", type="principle"), make("candidate b", confidence=0.5)
    ranked = rank(
        [(0.0, a), (0.0, b)],
        by_type([a]),
        category="general",
        now=NOW,
        settings=Settings(),
        max_results=2,
    )
    assert [(r.insight.claim, r.matched, r.score) for r in ranked] == [("candidate a", False, 0.0)]


def test_a_relevance_of_0_up_to_float_error_is_no_match() -> None:
    """fix110: a candidate whose relevance is a float residue of the best (1e-17 of it)
    was a match: sharpened, a match of 0 scores 0.5 ^ (1 / 0.023), ~8e-14, never 0. A
    weak match (2e-4 of the best, as bench/eval has them) still is one."""
    best, weak = make("Pin every dependency version"), make("Write the changelog entry first")
    residue = make("Answer the question that was asked", type="principle")
    ranked = rank(
        [(2.0, best), (4e-4, weak), (2e-17, residue)],
        by_type([residue]),
        category="general",
        now=NOW,
        settings=Settings(),
        max_results=3,
    )
    assert [(r.insight, r.matched) for r in ranked] == [
        (best, True),
        (weak, True),
        (residue, False),
    ]
    assert ranked[1].score > 0 and ranked[2].score == 0.0


def test_filling_stops_early_once_no_later_insight_can_win() -> None:
    consumed = []

    def strongest(kind: str):  # type: ignore[no-untyped-def]
        for n in range(1000):
            consumed.append(n)
            insight = make(f"i{n}", confidence=0.9 - n / 2000, type=kind)
            yield strength(insight, "general", NOW, Settings()).score, insight

    rank([], strongest, category="general", now=NOW, settings=Settings(), max_results=3)
    assert len(consumed) < 10


# ------------------------------------------------------------------ budgets


def lines_of(*claims_and_types: tuple[str, str]) -> list[Insight]:
    return [make(claim, type=kind, id=f"i{n}") for n, (claim, kind) in enumerate(claims_and_types)]


def test_tokens_are_estimated_like_the_original() -> None:
    assert [estimate_tokens(t) for t in ("", "abcd", "abcde", "🦞")] == [0, 1, 2, 1]


def test_insights_are_chosen_in_rank_order_and_printed_grouped_by_type_best_first() -> None:
    ranked = lines_of(("Use tests", "skill"), ("Be kind", "personality"), ("Use git", "skill"))
    text = marshal(pack(ranked, 1000))
    assert text == "### Skill\n- Use tests\n- Use git\n\n### Personality\n- Be kind"
    kind_first = lines_of(
        ("Be kind", "personality"), ("Use tests", "skill"), ("Be calm", "personality")
    )
    assert marshal(pack(kind_first, 1000)).startswith("### Personality\n- Be kind\n- Be calm\n")


def test_the_budget_is_never_exceeded_and_omissions_are_counted() -> None:
    ranked = lines_of(
        *[(f"Insight number {n} with a fairly long claim text", "skill") for n in range(10)]
    )
    for budget in range(1, 200, 7):
        packed = pack(ranked, budget)
        text = marshal(packed)
        assert estimate_tokens(text) <= budget
        assert packed.omitted == 10 - len(packed.chosen)
        assert (omission_note(packed.omitted) in text) == packed.note
        assert packed.note == (packed.omitted > 0 and budget >= 15)
        assert "### Skill" not in text or "- Insight" in text  # never a bare header


def test_a_trigger_reads_as_a_reflex_and_full_adds_the_details() -> None:
    trigger = make(
        "force-pushing",
        type="trigger",
        condition="the branch is shared",
        avoid=True,
        context="Shared branches",
    )
    assert marshal(pack([trigger], 100)) == (
        "### Trigger\n- When: the branch is shared → avoid: force-pushing"
    )
    assert "\n  Context: Shared branches" in marshal(pack([trigger], 100, True), True)


# ------------------------------------------------------------------ evaluation


def test_the_evaluation_set_keeps_its_quality() -> None:
    """Triggers described by their situation surface, and the ranking stays good.

    Floors sit a little under today's figures (bench/eval/run.py), so a change that
    makes retrieval clearly worse fails here.
    """
    evaluation = bench_module("eval", "run")

    insights, queries = evaluation.load()
    with tempfile.TemporaryDirectory() as folder:
        evaluation.build_store(insights, Path(folder))
        ranked = evaluation.rankings(Path(folder), queries, evaluation.DEFAULT_SHAPE)
        undamped = evaluation.rankings(Path(folder), queries, ORIGINAL_SHAPE)
        text = evaluation.rankings(Path(folder), queries, evaluation.DEFAULT_SHAPE, mode="text")
    assert all(evaluation.triggers_surfaced(queries, ranked))
    scores = evaluation.evaluate(queries, ranked)
    assert scores["all"].ndcg_at_10 > 0.74 and scores["plain"].recall_at_5 > 0.75
    assert scores["paraphrase"].ndcg_at_10 > 0.58
    assert scores["all"].ndcg_at_10 > evaluation.evaluate(queries, undamped)["all"].ndcg_at_10
    assert evaluation.evaluate(queries, text)["all"].ndcg_at_10 > 0.57


def test_the_strongest_come_in_bound_order_across_types(tmp_path: Path) -> None:
    from chitin.format.markdown import serialize
    from chitin.index.cache import Cache
    from chitin.retrieval.scoring import base_strength
    from chitin.store.source import StoreFiles

    for n, (kind, confidence) in enumerate(
        [("skill", 0.9), ("skill", 0.5), ("personality", 0.8), ("trigger", 0.7)]
    ):
        insight = make(
            f"c{n}",
            type=kind,
            confidence=confidence,
            id=f"c{n}",
            condition="x" if kind == "trigger" else None,
        )
        path = tmp_path / "insights" / kind / f"c{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialize(insight))
    cache = Cache(tmp_path, base_strength, StoreFiles(tmp_path))
    cache.sync()
    factors = {"skill": 1.0, "personality": 2.0, "trigger": 0.5}
    bounds = [(round(b, 4), i.id) for b, i in cache.strongest(factors)]
    cache.close()
    assert [i for _, i in bounds] == ["c2", "c0", "c1", "c3"]
    assert [b for b, _ in bounds] == sorted((b for b, _ in bounds), reverse=True)


# ------------------------------------------------------------------ selection


def test_the_stronger_of_two_alike_takes_the_better_place() -> None:
    from chitin.retrieval.selection import select

    weak = make("Reproduce a bug before fixing it", id="weak", confidence=0.5)
    strong = make(
        "Reproduce a bug with a minimal failing case before changing any code to fix it",
        id="strong",
        confidence=0.95,
    )
    other = make("Keep commits small", id="other", type="principle")
    ranked = rank(
        [(9.0, weak), (8.0, other), (3.0, strong)],
        by_type([]),
        category="general",
        now=NOW,
        settings=Settings(),
        max_results=2,
        cosine=lambda a, b: 0.7 if {a.id, b.id} == {"weak", "strong"} else 0.1,
    )
    assert [(r.insight.id, r.also_covers) for r in ranked] == [
        ("strong", ("weak",)),
        ("other", ()),
    ]
    assert ranked[0].factors.match == 1.0  # the place's relevance, not its own
    assert select(ranked, 2, lambda a, b: 0.7) == ranked  # already one line per lesson


def test_insights_of_different_types_fold_only_when_they_say_the_same_sentence() -> None:
    """Across types, alike is not the same lesson (even at a cosine of 1); the very same
    claim is, unless one is a trigger (its claim is half of what it says)."""
    from chitin.retrieval.selection import select

    def ids(*insights: Insight) -> list[str]:
        ranked = [
            rank([(9.0, i)], by_type([]), category="general", now=NOW, settings=Settings(),
                 max_results=1)[0]
            for i in insights
        ]  # fmt: skip
        return [r.insight.id for r in select(ranked, 5, lambda a, b: 1.0)]

    skill = make("Reproduce a bug before fixing it", id="skill")
    alike = make("Reproduce bugs before fixing them", id="principle", type="principle")
    assert ids(skill, alike) == ["skill", "principle"]
    same = make("reproduce a bug, before fixing it.", id="principle", type="principle")
    assert ids(skill, same) == ["skill"]
    trigger = make(skill.claim, id="trigger", type="trigger", condition="a bug is reported")
    assert ids(skill, trigger) == ["skill", "trigger"]


def test_a_restatement_needs_its_words_and_its_meaning() -> None:
    from chitin.retrieval.selection import restates

    short = make("Reproduce a bug before fixing it")
    long = make("Reproduce a bug with a minimal failing case before changing any code to fix it")
    unrelated = make("Fix the flaky login test before the release")
    assert restates(short, long, 0.7) and restates(long, short, 0.7)
    assert not restates(short, long, 0.5)  # far in meaning
    assert not restates(short, long, None)  # no vectors: no restatement by words alone
    assert not restates(short, unrelated, 0.7)  # "reproduce" is not in it
