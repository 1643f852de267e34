"""Issue 11, items 17 and 18: `check` judges as `contribute` judges, and the smaller
things a new user met (list, changelog, quality, merged-away ids, README examples)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from conftest import Run, git

from chitin.model.insight import format_timestamp

ROOT = Path(__file__).resolve().parent.parent


def check_json(run: Run, *args: str) -> Any:
    return json.loads(run("check", *args, "--format", "json").stdout)


# ---------------------------------------------------------------- 17: check as contribute


def contribute(run: Run, kind: str, claim: str) -> Any:
    args = ["contribute", "--type", kind, "--claim", claim, "--confidence", "0.7"]
    return json.loads(run(*args, "--format", "json").stdout)


def warned_pairs(report: Any) -> set[frozenset[str]]:
    """The pairs of ids a check report warns about."""
    pairs = set()
    for warning in report["warnings"]:
        other = warning["message"].split(" insights/")[1].split(" (")[0]
        pairs.add(frozenset(Path(p).stem for p in (warning["path"], other)))
    return pairs


def test_check_reports_the_conflict_contribute_warns_about(run: Run, add: Any, store: Path) -> None:
    concise = add("principle", "Boss values concise brief responses", 0.7)
    result = contribute(run, "principle", "Boss prefers verbose detailed explanations")
    [warned] = result["conflicts"]
    assert warned["id"] == concise["id"] and warned["conflictScore"] > 0.7  # 0.3·cos + 0.7
    verbose = result["insight"]
    paths = [f"insights/principle/{i['id']}.md" for i in (concise, verbose)]
    for args in ((), (str(store / paths[0]),), (str(store / paths[1]),)):
        report = check_json(run, *args)
        assert [w["kind"] for w in report["warnings"]] == ["conflict"]
        assert warned_pairs(report) == {frozenset((concise["id"], verbose["id"]))}
        assert '"verbose"' in report["warnings"][0]["message"]
        assert '"concise"' in report["warnings"][0]["message"]
    assert run("check").stdout.splitlines()[-1] == (
        "✓ 2 insight files checked: no errors, 1 warning"
    )


def test_check_warns_about_every_pair_contribute_names_for_the_newest_claim(
    run: Run, store: Path
) -> None:
    """The same judgement: check judges by words, as contribute does without vectors."""
    contribute(run, "principle", "Run the linter before every push")
    (store / "chitin.yaml").write_text("embedding:\n  provider: none\n")
    claims = [
        "Keep answers thorough for the operator",
        "Keep answers long for the operator",
        "Always keep answers brief for the operator",
        "Be formal in emails to customers",
        "Never be verbose in commit messages",
    ]
    ids = [contribute(run, "principle", claim)["insight"]["id"] for claim in claims]
    newest = contribute(run, "principle", "Keep answers brief for the operator")
    mine = newest["insight"]["id"]
    assert newest["degraded"] is not None
    named = {frozenset((mine, m["id"])) for m in newest["conflicts"] + newest["duplicates"]}
    assert named == {frozenset((mine, i)) for i in ids[:3]}
    report = check_json(run)
    # Duplicates are clusters ("thorough" and "long" are one too), and the conflict
    # between two clusters is one warning.
    clusters = [w for w in report["warnings"] if w["kind"] == "near-duplicate"]
    members = {
        frozenset((Path(w["path"]).stem, w["message"].split("/")[-1][:-3])) for w in clusters
    }
    assert members == {frozenset((mine, ids[2])), frozenset((ids[0], ids[1]))}
    [clash] = [w for w in report["warnings"] if w["kind"] == "conflict"]
    assert '"brief" ↔ "long"' in clash["message"] or '"brief" ↔ "thorough"' in clash["message"]


def test_list_shows_a_trigger_as_a_reflex_with_its_condition(run: Run, add: Any) -> None:
    avoid = add(
        "trigger",
        "weakening the assertion",
        0.9,
        condition="a test fails and editing it is quickest",
        avoid=True,
    )
    add("trigger", "re-read the notes", 0.8, condition="the context was compacted")
    lines = run("list").stdout.splitlines()
    assert (
        "  [trigger] When: a test fails and editing it is quickest → avoid: weakening the assertion"
    ) in lines
    assert "  [trigger] When: the context was compacted → do: re-read the notes" in lines
    # The JSON keeps its shape: the claim alone, with condition and avoid beside it.
    [listed] = [i for i in json.loads(run("list", "--format", "json").stdout) if i["avoid"]]
    assert listed == avoid
    assert (listed["claim"], listed["condition"]) == (
        "weakening the assertion",
        "a test fails and editing it is quickest",
    )


# ---------------------------------------------------------------- 18: changelog


def test_changelog_shows_whole_ids_and_as_many_rows_as_asked(run: Run, store: Path) -> None:
    run("init", "--seed")
    made = []
    for n in range(3):
        args = ["contribute", "--type", "skill", "--claim", f"Reproduce case {n} in isolation"]
        made.append(
            json.loads(run(*args, "--confidence", "0.7", "--format", "json").stdout)["insight"]
        )
        # A hand commit under insights/ that holds no insight: a commit without a row.
        (store / "insights" / "notes.txt").write_text(f"notes {n}\n")
        git(store, "add", "-A")
        git(store, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "n")
    for limit in range(1, 9):
        result = run("changelog", "--limit", str(limit))
        rows = result.stdout.splitlines()[2:]
        assert result.stdout.startswith(f"Recent changes ({limit}):\n\n")
        assert len(rows) == limit
        shown = json.loads(run("changelog", "--limit", str(limit), "--format", "json").stdout)
        assert len(shown) == limit
    rows = run("changelog", "--limit", "3").stdout.splitlines()[2:]
    for row, insight in zip(rows, reversed(made), strict=True):
        assert f'[create] {insight["id"]} "{insight["claim"]}"' in row
    everything = json.loads(run("changelog", "--limit", "1000", "--format", "json").stdout)
    assert len(everything) == 14 + 3  # the seed and the contributions: all there are


# ---------------------------------------------------------------- 18: quality


def test_a_brand_new_insight_is_new_not_fading(run: Run, add: Any, store: Path) -> None:
    made = add("skill", "Reproduce a bug before fixing it", 0.85)
    [score] = json.loads(run("quality", "--format", "json").stdout)["topInsights"]
    assert (score["insightId"], score["status"]) == (made["id"], "new")
    assert "recommendation" not in score
    report = run("quality").stdout
    assert "fading" not in report and "⚪ new: 1 (100%)" in report
    assert run("quality", "score", made["id"]).stdout.startswith("Quality: ")
    assert "— NEW\n" in run("quality", "score", made["id"]).stdout


def test_new_lasts_a_week_since_creation_or_the_last_reinforcement(run: Run, store: Path) -> None:
    run("init")
    for name, days in (("week-old-aaaa", 8), ("reinforced-bbbb", 20)):
        created = format_timestamp(datetime.now(UTC) - timedelta(days=days))
        folder = store / "insights" / "skill"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.md").write_text(
            f"---\nid: {name}\ntype: skill\nconfidence: 0.85\ncreated: {created}\n"
            f"updated: {created}\n---\n\nThe claim of {name}\n"
        )
    git(store, "add", "-A")
    git(store, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "two")
    run("reinforce", "reinforced-bbbb")
    report = json.loads(run("quality", "--format", "json").stdout)
    status = {s["insightId"]: s["status"] for s in report["topInsights"]}
    assert status == {"week-old-aaaa": "fading", "reinforced-bbbb": "new"}
    assert report["distribution"] == {
        "thriving": 0,
        "healthy": 0,
        "new": 1,
        "fading": 1,
        "stale": 0,
        "dormant": 0,
    }


# ---------------------------------------------------------------- 18: merged-away ids


def test_get_and_history_of_a_merged_away_id_name_where_it_went(run: Run, add: Any) -> None:
    source = add("skill", "Reproduce bugs with a failing test", 0.7)
    target = add("skill", "Reproduce a bug before fixing it", 0.85, force=True)
    run("merge", source["id"], target["id"])
    today = datetime.now(UTC).strftime("%Y-%m-%d")  # the merge's commit date (UTC)
    for ref in (source["id"], "reproduce-bugs-with"):
        for command in ("get", "history"):
            result = run(command, ref, expect=1)
            assert result.stderr == (
                f"Error: no insight {ref}; it was merged into {target['id']} ({today})\n"
            )
    result = run("merge", "reproduce-bugs", target["id"], expect=1)
    assert result.stderr == (
        f"Error: no source insight reproduce-bugs; it was merged into {target['id']} ({today})\n"
    )
    # Never merged: as before.
    assert run("get", "no-such-insight", expect=1).stderr == (
        "Error: Insight not found: no-such-insight\n"
    )
    assert run("merge", "no-such", target["id"], expect=1).stderr == (
        "Error: Source insight not found: no-such\n"
    )


def test_a_merged_away_id_is_still_named_after_export_and_import(
    run: Run, add: Any, tmp_path: Path
) -> None:
    """fix100: after `export` and `import` into an empty store, `get <merged-away id>`
    said "not found": no merge commit names it there. The merge travels as a history
    row of its target (the export's 1.4.5 fields), which the import commit carries."""
    from click.testing import CliRunner

    from chitin.cli import cli

    source = add("skill", "Reproduce bugs with a failing test", 0.7)
    target = add("skill", "Reproduce a bug before fixing it", 0.85, force=True)
    run("merge", source["id"], target["id"])
    exported = tmp_path / "export.json"
    run("export", "--output", str(exported))
    other = ["--store", str(tmp_path / "other")]
    for args in (["init"], ["import", str(exported)]):
        assert CliRunner().invoke(cli, [*other, *args]).exit_code == 0
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    for ref in (source["id"], "reproduce-bugs-with"):
        got = CliRunner().invoke(cli, [*other, "get", ref])
        assert got.exit_code == 1
        assert (
            got.stderr == f"Error: no insight {ref}; it was merged into {target['id']} ({today})\n"
        )
    got = CliRunner().invoke(cli, [*other, "get", "no-such-insight"])
    assert got.stderr == "Error: Insight not found: no-such-insight\n"


def test_a_prefix_of_two_merged_away_ids_is_just_not_found(run: Run, add: Any) -> None:
    target = add("skill", "Keep one insight about commits", 0.8)
    for claim in ("Commit small changes often", "Commit with clear messages"):
        run("merge", add("skill", claim, 0.7, force=True)["id"], target["id"])
    assert run("get", "commit", expect=1).stderr == "Error: Insight not found: commit\n"


# ---------------------------------------------------------------- 18: the README's similar


def test_the_readmes_similar_examples_find_something(run: Run) -> None:
    """Run the README's usage examples in order on a fresh `init --seed` store; each
    `similar` example finds at least one insight with the default thresholds."""
    usage = (ROOT / "README.md").read_text().split("## Using it", 1)[1]
    block = usage.split("```sh\n", 1)[1].split("```", 1)[0].replace("\\\n", " ")
    run("init", "--seed")
    examples = 0
    for line in block.splitlines():
        argv = shlex.split(line, comments=True)
        assert argv[0] == "chitin"
        result = run(*argv[1:])
        if argv[1] == "similar":
            examples += 1
            assert result.stdout.startswith("Found "), (line, result.stdout)
        if argv[1] == "update":  # the examples after it change the store
            break
    assert examples == 2


def test_a_tag_given_in_a_list_is_split_at_its_commas_as_the_flag_is(
    run_json: Callable[..., Any],
) -> None:
    """--tags a,b gives two tags; so does ["a,b"] from --json (or the MCP tools), else
    a tag with a comma could never be asked for again (`list --tags` splits too)."""
    given = {"type": "skill", "claim": "Tag it twice", "confidence": 0.5, "tags": ["ci,flaky"]}
    made = run_json("contribute", "--json", input=json.dumps(given))
    assert made["insight"]["tags"] == ["ci", "flaky"]
    assert [i["claim"] for i in run_json("list", "--tags", "flaky")] == ["Tag it twice"]
