"""Insight quality: the pure scores against the original's observed values, its fixed
bugs, the report, the human layouts, and the commands end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from hypothesis import given, settings
from hypothesis import strategies as st

from chitin.index.usage import record_times
from chitin.model.insight import Insight, format_timestamp
from chitin.render import quality as render
from chitin.retrieval import quality
from chitin.retrieval.quality import QualityScore

NOW = datetime(2026, 3, 28, 9, tzinfo=UTC)
JAN_1 = "2026-01-01T00:00:00Z"


def insight(
    *,
    reinforcements: int = 0,
    confidence: float = 0.85,
    created: str = JAN_1,
    id: str = "test-123",
    kind: str = "behavioral",
    claim: str = "Test insight claim",
) -> Insight:
    return Insight(id, kind, claim, confidence, created, created, reinforcements=reinforcements)


def scored(last_retrieved: str | None = None, **fields: Any) -> QualityScore:
    return quality.score(insight(**fields), NOW, last_retrieved)


# ------------------------------------------------------------------ one insight


@pytest.mark.parametrize(
    ("fields", "recalled", "value", "status"),
    [
        # The original's test cases and the values it was observed to give.
        ({"reinforcements": 5, "confidence": 0.95}, "2026-03-27T00:00:00Z", 0.885, "thriving"),
        ({"reinforcements": 10}, None, 0.714, "thriving"),
        ({"reinforcements": 1, "confidence": 0.7}, "2026-02-15T00:00:00Z", 0.413, "stale"),
        (
            {"confidence": 0.5, "created": "2025-11-01T00:00:00Z"},
            "2025-12-01T00:00:00Z",
            0.18,
            "dormant",
        ),
        ({"created": "2026-03-28T08:00:00Z"}, None, 0.368, "new"),  # the original: dormant
    ],
)
def test_scores_match_the_originals_observed_values(
    fields: dict[str, Any], recalled: str | None, value: float, status: str
) -> None:
    result = scored(recalled, **fields)
    assert (result.quality, result.status) == (value, status)


def test_components_follow_the_formula() -> None:
    result = scored("2026-03-27T00:00:00Z", reinforcements=5, confidence=0.95)
    assert result.components == quality.Components(0.83, 0.955, 0.797, 0.95)
    assert result.days_since_last_recall == 1.375  # exact, as the original
    assert (result.age_days, result.age_in_days) == (86.375, 86)
    assert result.recommendation is None  # thriving and already confident


@pytest.mark.parametrize(
    ("count", "engagement"), [(0, 0.1), (1, 0.355), (3, 0.669), (5, 0.83), (10, 0.968)]
)
def test_engagement_rises_with_diminishing_returns(count: int, engagement: float) -> None:
    assert quality.round3(quality.engagement_of(count)) == engagement


def test_never_recalled_freshness_is_half_while_new_then_a_tenth() -> None:
    six_days = format_timestamp(NOW - timedelta(days=6, hours=23))
    seven_days = format_timestamp(NOW - timedelta(days=7))
    assert scored(created=six_days).components.freshness == 0.5
    assert scored(created=seven_days).components.freshness == 0.1
    assert scored("2026-02-26T09:00:00Z").components.freshness == 0.368  # e^-1 after 30 days


def test_the_originals_messages_stay_where_they_are_true() -> None:
    assert scored("2026-02-15T00:00:00Z", reinforcements=1, confidence=0.7).recommendation == (
        "Review and reinforce if still relevant, or archive"
    )
    dormant = scored("2025-12-01T00:00:00Z", confidence=0.5, created="2025-11-01T00:00:00Z")
    assert dormant.recommendation == "Consider archiving — not recalled in 90+ days"
    fading = scored(created="2026-03-18T08:00:00Z")  # 10 days, never recalled
    assert fading.recommendation == "Never reinforced — validate with experience or archive"
    assert scored(reinforcements=10).recommendation == (
        "Strong engagement — consider reinforcing to boost confidence"
    )


def test_a_brand_new_low_confidence_insight_is_new_not_dormant() -> None:
    # The original called this "dormant — not recalled in 90+ days" (§11.23).
    result = scored(confidence=0.1, created="2026-03-28T08:00:00Z")
    assert result.quality == 0.18
    assert result.status == "new"
    assert result.recommendation is None


def test_an_86_day_old_never_recalled_insight_is_stale_and_told_so() -> None:
    result = scored()  # created Jan 1, never retrieved
    assert (result.quality, result.status) == (0.287, "stale")  # the original: dormant
    assert result.days_since_last_recall is None
    assert result.recommendation == (
        "Never recalled since it was created 86 days ago — "
        "review and reinforce if still relevant, or archive"
    )


def test_a_long_unrecalled_insight_is_dormant_and_told_how_long() -> None:
    result = scored(created="2025-11-01T00:00:00Z")  # 147 days, never retrieved
    assert result.status == "dormant"
    assert result.recommendation == (
        "Consider archiving — never recalled since it was created 147 days ago"
    )


def test_future_timestamps_count_as_zero_days() -> None:
    result = scored("2026-04-10T00:00:00Z", created="2026-04-01T00:00:00Z")
    assert (result.age_days, result.days_since_last_recall) == (0.0, 0.0)
    assert result.components.freshness == 1.0  # not above 1
    assert result.components.maturity == 0.0
    assert result.quality <= 1.0


@settings(max_examples=300, deadline=None)
@given(
    reinforcements=st.integers(0, 50),
    confidence=st.floats(0, 1),
    age=st.floats(0, 400),
    since_recall=st.none() | st.floats(0, 400),
)
def test_status_and_text_always_say_what_is_true(
    reinforcements: int, confidence: float, age: float, since_recall: float | None
) -> None:
    created = format_timestamp(NOW - timedelta(days=age))
    recalled = (
        None if since_recall is None else format_timestamp(NOW - timedelta(days=since_recall))
    )
    result = scored(recalled, reinforcements=reinforcements, confidence=confidence, created=created)
    unrecalled = result.days_unrecalled
    new = age < 7  # these insights have no time of reinforcement: since creation
    text = result.recommendation or ""
    expected = {
        "dormant": unrecalled > 90,
        "stale": 30 < unrecalled <= 90,
        "new": unrecalled <= 30 and new,
        "fading": unrecalled <= 30 and not new,
        "healthy": True,
        "thriving": True,
    }
    assert expected[result.status], (result.status, unrecalled)
    assert 0 <= result.quality <= 1
    if "90+ days" in text:
        assert result.days_since_last_recall is not None and unrecalled > 90
    if "never recalled" in text.lower():
        assert result.days_since_last_recall is None
        assert f"created {result.age_in_days} days ago" in text


# ------------------------------------------------------------------ the report


def many(count: int, **fields: Any) -> list[QualityScore]:
    recalled = fields.pop("recalled", None)
    return [scored(recalled, id=f"{fields.get('claim', 'x')}-{n}", **fields) for n in range(count)]


THRIVING = {"reinforcements": 10, "confidence": 0.95, "recalled": "2026-03-27T09:00:00Z"}
DORMANT = {"confidence": 0.8, "created": "2025-06-01T00:00:00Z"}  # 300 days, never recalled
STALE = {"confidence": 0.9}  # 86 days, never recalled


def test_an_empty_report_has_zeros_and_no_advice() -> None:
    report = quality.report([])
    assert (report.total, report.average_quality, report.recommendations) == (0, 0.0, [])
    assert report.distribution == dict.fromkeys(quality.STATUSES, 0)


def test_the_report_counts_sorts_and_limits() -> None:
    scores = [
        scored(id="stale", **STALE),
        scored("2026-03-27T09:00:00Z", id="best", reinforcements=10, confidence=0.95),
        scored(id="dormant", **DORMANT),
        scored(id="new", created="2026-03-28T08:00:00Z"),
    ]
    report = quality.report(scores, top=2)
    assert report.distribution == {
        "thriving": 1,
        "healthy": 0,
        "new": 1,
        "fading": 0,
        "stale": 1,
        "dormant": 1,
    }
    assert [s.insight_id for s in report.top] == ["best", "new"]
    assert [s.insight_id for s in report.stale] == ["dormant", "stale"]  # lowest first
    assert report.average_quality == quality.round3(sum(s.quality for s in scores) / 4)
    assert len(quality.report(scores).top) == 4


@pytest.mark.parametrize(
    ("scores", "advice"),
    [
        # stale or dormant: more than 30 % (3 of 10 is not)
        (
            many(3, **STALE) + many(7, **THRIVING),
            [],
        ),
        (
            many(4, **STALE) + many(6, **THRIVING),
            ["4 insights (40%) are stale or dormant — consider a cleanup session"],
        ),
        # dormant: more than 5
        (
            many(5, **DORMANT) + many(20, **THRIVING),
            [],
        ),
        (
            many(6, **DORMANT) + many(20, **THRIVING),
            ["6 dormant insights haven't been recalled in 90+ days — archive candidates"],
        ),
        # never reinforced: more than half
        (
            many(2, created="2026-03-28T08:00:00Z") + many(2, **THRIVING),
            [],
        ),
        (
            many(3, created="2026-03-28T08:00:00Z") + many(2, **THRIVING),
            ["3 insights have never been reinforced — validate them or they'll decay"],
        ),
        # mean confidence under 0.7, printed like toFixed(0)
        (
            many(1, **{**THRIVING, "confidence": 0.5})
            + many(1, **{**THRIVING, "confidence": 0.79}),
            ["Average confidence is 65% — consider reinforcing your best insights"],
        ),
        (
            many(2, **{**THRIVING, "confidence": 0.7}),
            [],
        ),
        # crowded: more than 100
        (many(100, **THRIVING), []),
        (
            many(101, **THRIVING),
            ["101 total insights — consider merging duplicates or archiving low-value ones"],
        ),
    ],
)
def test_report_advice_thresholds(scores: list[QualityScore], advice: list[str]) -> None:
    assert quality.report(scores).recommendations == advice


def test_report_advice_comes_in_the_originals_order() -> None:
    scores = many(101, **DORMANT, claim="d") + many(1, **THRIVING)
    lines = quality.report(scores).recommendations
    assert [line.split(" ")[1] for line in lines] == [
        "insights",  # "101 insights (99%) are stale or dormant"
        "dormant",
        "insights",  # "101 insights have never been reinforced"
        "total",
    ]


def test_javascript_rounding_is_kept() -> None:
    assert quality.js_round(2.5) == 3 and round(2.5) == 2
    assert quality.fixed(0.125 * 100, 0) == "13"
    assert quality.fixed(39.25, 1) == "39.3"
    assert quality.fixed(1.005, 2) == "1.00"  # 1.005 is 1.00499… in binary, as in JS
    assert quality.round3(0.0005) == 0.001


# ------------------------------------------------------------------ human text


def test_the_report_layout() -> None:
    scores = [
        scored("2026-03-27T00:00:00Z", id="a", reinforcements=5, confidence=0.95, claim="A" * 61),
        scored(id="b", claim="Old and never recalled"),
        scored("2025-12-01T00:00:00Z", id="c", confidence=0.5, claim="Long unrecalled"),
    ]
    assert render.report_text(quality.report(scores)) == [
        "chitin — Insight Quality Report",
        "═══════════════════════════════",
        "",
        "Total insights: 3",
        "Average quality: 45.0%",
        "",
        "Distribution:",
        "  🟢 thriving: 1 (33%)",
        "  🟠 stale: 1 (33%)",
        "  🔴 dormant: 1 (33%)",
        "",
        "Top Insights:",
        f"  🟢 [89%] {'A' * 60}...",
        "  🟠 [29%] Old and never recalled",
        "  🔴 [18%] Long unrecalled",
        "",
        "Needs Attention:",
        "  🔴 [18%] Long unrecalled (117d ago)",
        "  🟠 [29%] Old and never recalled (never recalled, created 86d ago)",
        "",
        "Recommendations:",
        "  • 2 insights (67%) are stale or dormant — consider a cleanup session",
        "  • 2 insights have never been reinforced — validate them or they'll decay",
    ]


def test_the_report_names_five_that_need_attention_and_counts_the_rest() -> None:
    lines = render.report_text(quality.report(many(7, **STALE)))
    start = lines.index("Needs Attention:")
    assert len([line for line in lines[start + 1 :] if line.startswith("  🟠")]) == 5
    assert "  … and 2 more: chitin quality --stale-only" in lines


def test_the_stale_only_layout() -> None:
    scores = [
        scored(id="old-one-k3f9", claim="Old and never recalled"),
        scored("2025-12-01T00:00:00Z", id="gone-a1b2", confidence=0.5, claim="Long unrecalled"),
        scored(reinforcements=10),
    ]
    assert render.stale_text(quality.report(scores)) == [
        "Found 2 stale/dormant insights:",
        "",
        "  [18%] DORMANT",
        "  Long unrecalled",
        "  Last recall: 117d ago | ID: gone-a1b2",
        "  → Consider archiving — not recalled in 90+ days",
        "",
        "  [29%] STALE",
        "  Old and never recalled",
        "  Last recall: never recalled, created 86d ago | ID: old-one-k3f9",
        "  → Never recalled since it was created 86 days ago — review and reinforce if "
        "still relevant, or archive",
        "",
    ]
    assert render.stale_text(quality.report(scores[2:])) == [
        "✓ No stale or dormant insights found."
    ]


def test_the_score_layout_matches_the_originals_observed_output() -> None:
    # Observed on a real run: created moments before, so maturity is just above 0 and
    # the quality just above 0.3925 (exactly 0.3925 would be 0.39249999… in binary).
    result = scored(kind="principle", confidence=0.95, created="2026-03-28T08:59:00Z", id="p-1")
    assert render.score_text(result) == [
        "Quality: 39.3% — NEW",  # the original: FADING
        "Claim: Test insight claim",
        "Type: principle | Age: 0d",
        "Engagement: 10% | Freshness: 50% | Maturity: 0% | Confidence: 95%",
        "Last recall: never recalled, created 0d ago | ID: p-1",
    ]


# ------------------------------------------------------------------ the commands

REPORT_KEYS = [
    "totalInsights",
    "averageQuality",
    "distribution",
    "topInsights",
    "staleInsights",
    "recommendations",
]
SCORE_KEYS = [
    "insightId",
    "claim",
    "type",
    "quality",
    "components",
    "status",
    "recommendation",
    "daysSinceLastRecall",
    "ageInDays",
    "lastRetrievedAt",
]


def ago(days: float) -> str:
    return format_timestamp(datetime.now(UTC) - timedelta(days=days))


def write_insight(
    store: Path, insight_id: str, claim: str, created_days_ago: float, confidence: float = 0.85
) -> None:
    """An insight file as a person would write it, with its creation time in the past."""
    created = ago(created_days_ago)
    folder = store / "insights" / "skill"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{insight_id}.md").write_text(
        f"---\nid: {insight_id}\ntype: skill\nconfidence: {confidence}\n"
        f"created: {created}\nupdated: {created}\n---\n\n{claim}\n"
    )


@pytest.fixture
def aged(run: Run, store: Path) -> Path:
    """One fresh, one stale (86 days, never recalled), one dormant (recalled 100 days ago)."""
    run("init")
    write_insight(store, "fresh-1111", "Fresh and new", 0.1)
    write_insight(store, "stale-2222", "Old and never recalled", 86)
    write_insight(store, "dormant-3333", "Recalled long ago", 200, confidence=0.5)
    run("list")  # creates .chitin/
    assert record_times(store, [("dormant-3333", ago(100))])
    return store


def quality_json(run: Run, *args: str) -> Any:
    return json.loads(run("quality", *args, "--format", "json").stdout)


def test_an_empty_store_says_so(run: Run) -> None:
    result = run("quality")
    assert result.stdout == "No insights found. Contribute some first!\n"
    report = quality_json(run)
    assert list(report) == REPORT_KEYS
    assert (report["totalInsights"], report["topInsights"], report["recommendations"]) == (
        0,
        [],
        [],
    )


def test_the_report_json_has_the_originals_shape(run: Run, aged: Path) -> None:
    report = quality_json(run)
    assert list(report) == REPORT_KEYS
    assert report["totalInsights"] == 3
    assert report["distribution"] == {
        "thriving": 0,
        "healthy": 0,
        "new": 1,
        "fading": 0,
        "stale": 1,
        "dormant": 1,
    }
    by_id = {s["insightId"]: s for s in report["topInsights"]}
    assert list(by_id["stale-2222"]) == SCORE_KEYS
    assert list(by_id["stale-2222"]["components"]) == [
        "engagement",
        "freshness",
        "maturity",
        "confidence",
    ]
    assert (by_id["stale-2222"]["status"], by_id["stale-2222"]["ageInDays"]) == ("stale", 86)
    assert by_id["stale-2222"]["daysSinceLastRecall"] is None
    dormant = by_id["dormant-3333"]
    assert dormant["status"] == "dormant"
    assert round(dormant["daysSinceLastRecall"]) == 100
    assert dormant["lastRetrievedAt"] is not None
    assert [s["insightId"] for s in report["staleInsights"]] == ["dormant-3333", "stale-2222"]


def test_the_human_report(run: Run, aged: Path) -> None:
    lines = run("quality").stdout.splitlines()
    assert lines[:2] == ["chitin — Insight Quality Report", "═══════════════════════════════"]
    assert "Total insights: 3" in lines
    attention = lines[lines.index("Needs Attention:") + 1 : lines.index("Needs Attention:") + 3]
    assert attention[0].endswith("Recalled long ago (100d ago)")
    assert attention[1].endswith("Old and never recalled (never recalled, created 86d ago)")


def test_stale_only_lists_the_stale_and_dormant(run: Run, aged: Path) -> None:
    out = run("quality", "--stale-only").stdout
    assert out.startswith("Found 2 stale/dormant insights:\n")
    ids = [line.rsplit("ID: ", 1)[1] for line in out.splitlines() if "ID: " in line]
    assert ids == ["dormant-3333", "stale-2222"]
    assert "Fresh and new" not in out


def test_stale_only_with_nothing_stale(run: Run, add: Any) -> None:
    add("skill", "Brand new", 0.9)
    assert run("quality", "--stale-only").stdout == "✓ No stale or dormant insights found.\n"


def test_top_limits_the_best_insights(run: Run, add: Any) -> None:
    for n in range(12):
        add("skill", f"Insight number {n} about topic {n}", round(0.5 + n * 0.04, 2))
    assert len(quality_json(run)["topInsights"]) == 10
    top = quality_json(run, "--top", "3")["topInsights"]
    assert [s["components"]["confidence"] for s in top] == [0.94, 0.9, 0.86]
    lines = run("quality", "--top", "2").stdout.splitlines()
    listed = lines[lines.index("Top Insights:") + 1 :]
    assert [line for line in listed[: listed.index("")]] == [
        "  ⚪ [39%] Insight number 11 about topic 11",
        "  ⚪ [38%] Insight number 10 about topic 10",
    ]


@pytest.mark.parametrize("value", ["0", "-1", "many"])
def test_top_must_be_a_positive_whole_number(run: Run, value: str) -> None:
    result = run("quality", "--top", value, expect=2)
    assert result.stderr.startswith("Error: Invalid value for '--top'")
    assert len(result.stderr.splitlines()) == 1


def test_the_originals_json_flag_still_works(run: Run, add: Any) -> None:
    made = add("skill", "Kept for old scripts", 0.8)
    assert json.loads(run("quality", "--json").stdout) == quality_json(run)
    assert json.loads(run("quality:score", made["id"], "--json").stdout) == json.loads(
        run("quality", "score", made["id"], "--format", "json").stdout
    )
    assert "--json" not in run("quality", "--help").stdout  # hidden: --format json is ours


def test_score_by_prefix_under_both_spellings(run: Run, aged: Path) -> None:
    spaced = json.loads(run("quality", "score", "stale-2", "--format", "json").stdout)
    colon = json.loads(run("quality:score", "stale-2", "--format", "json").stdout)
    assert spaced == colon
    assert list(spaced) == SCORE_KEYS
    assert (spaced["insightId"], spaced["status"], spaced["quality"]) == (
        "stale-2222",
        "stale",
        0.287,
    )
    lines = run("quality:score", "stale").stdout.splitlines()
    assert lines[0] == "Quality: 28.7% — STALE"
    assert lines[-1].startswith("→ Never recalled since it was created 86 days ago")


def test_score_errors(run: Run, add: Any, store: Path) -> None:
    missing = run("quality:score", "nope", expect=1)  # no store yet
    assert missing.stderr.splitlines()[-1] == "Error: Insight not found: nope"
    add("skill", "Same start one", 0.8)
    add("skill", "Same start two", 0.8)
    unknown = run("quality", "score", "nope", expect=1)
    assert unknown.stderr == "Error: Insight not found: nope\n"
    ambiguous = run("quality", "score", "same-start", expect=1)
    assert ambiguous.stderr.startswith("Error: Ambiguous ID prefix: same-start matches 2 insights")
    assert "Traceback" not in ambiguous.stderr + ambiguous.stdout
    assert run("quality", "score", expect=2).stderr.startswith("Error: Missing argument 'ID'")


def test_report_options_belong_after_the_subcommand(run: Run, add: Any) -> None:
    made = add("skill", "Anything", 0.8)
    result = run("quality", "--format", "json", "score", made["id"], expect=2)
    assert result.stderr.startswith("Error: options go after the subcommand")


def test_archived_insights_are_left_out_of_the_report(run: Run, add: Any) -> None:
    kept = add("skill", "Kept", 0.8)
    gone = add("skill", "Archived one", 0.8)
    run("archive", gone["id"])
    report = quality_json(run)
    assert [s["insightId"] for s in report["topInsights"]] == [kept["id"]]


def test_retrieval_times_come_from_retrieve(run: Run, add: Any, store: Path) -> None:
    wanted = add("skill", "Use git bisect to find the commit that broke the build", 0.8)
    (store / "chitin.yaml").write_text("embedding: {provider: none}\n")  # text search only
    other = add("principle", "Dry humour lands better than forced jokes", 0.8)
    before = quality_json(run)["topInsights"]
    assert {s["components"]["freshness"] for s in before} == {0.5}  # new, never recalled
    run("retrieve", "--query", "git bisect broke the build", "--max-results", "1")
    by_id = {s["insightId"]: s for s in quality_json(run)["topInsights"]}
    assert by_id[wanted["id"]]["components"]["freshness"] == 1.0
    assert by_id[wanted["id"]]["daysSinceLastRecall"] < 0.01
    assert by_id[wanted["id"]]["lastRetrievedAt"] is not None
    assert by_id[other["id"]]["components"]["freshness"] == 0.5
    assert by_id[other["id"]]["daysSinceLastRecall"] is None
    score = json.loads(run("quality:score", wanted["id"], "--format", "json").stdout)
    assert score["components"]["freshness"] == 1.0


def test_reinforcing_does_not_count_as_a_recall(run: Run, add: Any) -> None:
    # The original measured "freshness" from the last reinforcement (§11.11).
    made = add("skill", "Reinforced but never retrieved", 0.8)
    run("reinforce", made["id"])
    score = json.loads(run("quality:score", made["id"], "--format", "json").stdout)
    assert score["daysSinceLastRecall"] is None and score["lastRetrievedAt"] is None
    assert score["components"]["engagement"] == 0.355


def test_version_does_not_load_the_quality_modules() -> None:
    code = (
        "import sys; from chitin.cli import cli; sys.argv=['chitin','--version'];\n"
        "try: cli.main()\nexcept SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.endswith('quality')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"
