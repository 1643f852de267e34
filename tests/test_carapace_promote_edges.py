"""promote's edges: an archived insight stays home, and an empty --domain-tags is a
usage error (a promotion with no tag of its own is never what was meant)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from carapace_server import CarapaceServer
from conftest import Run, commit_count
from test_carapace import credentials_file, posts, well_tested
from test_carapace import home as home  # the fixtures: a registered agent
from test_carapace import key as key

from chitin import Chitin, ValidationError
from chitin.providers.carapace import CarapaceError


def test_an_archived_insight_is_not_promoted(
    carapace: CarapaceServer, run: Run, add: Any, store: Path, key: str
) -> None:
    insight_id = well_tested(add, run, "Write the failing test before the fix")
    run("archive", insight_id)
    commits = commit_count(store)
    refused = run("promote", insight_id, expect=1)
    assert refused.stderr == (
        f"Error: Insight {insight_id} is archived, and an archived insight is not shared; "
        f"run `chitin unarchive {insight_id}` first\n"
    )
    refused = run("promote", insight_id, "--force", expect=1)
    assert "is archived" in refused.stderr
    assert posts(carapace, "/contributions") == [] and commit_count(store) == commits


@pytest.mark.parametrize("tags", ["", " ", ",", " , "])
def test_empty_domain_tags_are_a_usage_error(
    carapace: CarapaceServer, run: Run, add: Any, key: str, tags: str
) -> None:
    insight_id = well_tested(add, run, "Write the failing test before the fix")
    refused = run("promote", insight_id, "--domain-tags", tags, expect=2)
    assert refused.stderr == (
        "Error: Invalid value for '--domain-tags': no tag given; give one or more, "
        "comma-separated (--domain-tags testing,python), or leave the option out to "
        "send the insight's own tags (see 'chitin promote --help')\n"
    )
    assert posts(carapace, "/contributions") == []


@pytest.mark.parametrize("tags", ["", " ", ",", " , "])
def test_empty_domain_tags_of_a_query_are_a_usage_error_too(
    carapace: CarapaceServer, run: Run, key: str, tags: str
) -> None:
    """As promote's: an option given with no tag in it is a mistake, not "any tag"."""
    refused = run("carapace-query", "memory", "--domain-tags", tags, expect=2)
    assert refused.stderr == (
        "Error: Invalid value for '--domain-tags': no tag given; give one or more, "
        "comma-separated (--domain-tags testing,python), or leave the option out to "
        "search every tag (see 'chitin carapace-query --help')\n"
    )
    assert posts(carapace, "/query") == []


def test_domain_tags_still_replace_the_insights_tags(
    carapace: CarapaceServer, run: Run, add: Any, key: str
) -> None:
    insight_id = well_tested(add, run, "Write the failing test before the fix", tags="mine")
    run("promote", insight_id, "--domain-tags", "testing, python")
    sent = posts(carapace, "/contributions")[-1].json
    assert sent["domainTags"] == ["testing", "python", "provenance:directive"]


def test_the_python_api_refuses_empty_domain_tags_too(store: Path, tmp_path: Path) -> None:
    with Chitin(store) as chitin, pytest.raises(ValidationError) as refused:
        chitin.promote("any", tmp_path / "credentials.json", [])
    assert refused.value.field == "domain_tags" and "no tag given" in str(refused.value)


def test_a_forced_second_promotion_says_which_one_it_replaces(
    carapace: CarapaceServer, run: Run, add: Any, key: str
) -> None:
    """--force lifts the once-only rule as it lifts the others, and says so: the new
    contribution's id takes the place of the first in the insight's carapace_id."""
    insight_id = well_tested(add, run, "Write the failing test before the fix")
    carapace.add_contribution(carapace.add_agent("Other"), "Pin versions in CI", 0.9)
    first = json.loads(run("promote", insight_id, "--format", "json").stdout)["carapace"]["id"]
    run("update", insight_id, "--claim", "Reproduce the bug in a test, then change the code")
    again = run("promote", insight_id, "--force")
    second = again.stdout.splitlines()[0].removeprefix("✓ Promoted to Carapace: ")
    assert second != first
    assert again.stderr.splitlines() == [
        "⚠ Promoting with warnings (--force):",
        f"  - Already promoted to Carapace as {first}: its id gives way to the new one",
        "",
    ]
    assert len(posts(carapace, "/contributions")) == 2


def test_a_forced_share_of_an_imported_insight_says_where_it_came_from(
    carapace: CarapaceServer, run: Run, add: Any, key: str
) -> None:
    theirs = carapace.add_contribution(carapace.add_agent("Other"), "Pin versions in CI", 0.9)
    made = json.loads(run("import-carapace", theirs.id, "--format", "json").stdout)["chitin"]
    run("reinforce", made["id"])
    run("reinforce", made["id"])
    run("update", made["id"], "--claim", "Pin every dependency version in CI builds")
    shared = run("promote", made["id"], "--force")
    assert shared.stderr.splitlines() == [
        "⚠ Promoting with warnings (--force):",
        f"  - Came from Carapace (contribution {theirs.id}): its id gives way to the new one",
        "",
    ]


@pytest.mark.parametrize("fault", ["refused", "unreachable"])
def test_a_forced_promotion_that_fails_still_says_what_it_overrode(
    carapace: CarapaceServer, run: Run, add: Any, store: Path, key: str, fault: str
) -> None:
    """The text is sent before the server answers: whatever it answers, the user learns
    what --force let through, before the error (1.4.5 printed the block before sending)."""
    insight_id = str(add("skill", "Batch small writes into one commit", 0.5)["id"])
    commits = commit_count(store)
    if fault == "refused":
        carapace.fail_next(409, {"error": {"code": "DUPLICATE", "message": "Already shared"}})
    else:
        carapace.close_next(times=10)
    failed = run("promote", insight_id, "--force", expect=1)
    lines = failed.stderr.splitlines()
    assert lines[:4] == [
        "⚠ Promoting with warnings (--force):",
        "  - Low confidence (0.5) — an insight without provenance requires ≥0.7",
        "  - Never reinforced — insight hasn't been validated through repeated experience",
        "",
    ]
    assert len(lines) == 5 and lines[4].startswith("Carapace error: ")
    assert commit_count(store) == commits


def test_the_python_api_error_carries_what_force_overrode(
    carapace: CarapaceServer, add: Any, store: Path, home: Path, key: str
) -> None:
    insight_id = str(add("skill", "Batch small writes into one commit", 0.5)["id"])
    carapace.fail_next(409, {"error": {"code": "DUPLICATE", "message": "Already shared"}})
    with Chitin(store) as chitin, pytest.raises(CarapaceError) as failed:
        chitin.promote(insight_id, credentials_file(home), None, force=True)
    assert failed.value.overridden[0].startswith("Low confidence (0.5)")


def test_a_promotion_without_force_that_fails_says_only_the_error(
    carapace: CarapaceServer, run: Run, add: Any, key: str
) -> None:
    insight_id = well_tested(add, run, "Write the failing test before the fix")
    carapace.fail_next(409, {"error": {"code": "DUPLICATE", "message": "Already shared"}})
    failed = run("promote", insight_id, "--force", expect=1)
    assert failed.stderr.splitlines() == ["Carapace error: Already shared (DUPLICATE)"]
