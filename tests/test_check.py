"""chitin check: every finding names the file, the field and the fix; errors fail,
warnings do not; it reads the files themselves and writes nothing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import Run, commit_count, git

from chitin.cli import cli
from chitin.model.ids import shard_folder
from chitin.store.repository import Store

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def insight_text(
    insight_id: str = "x",
    kind: str = "skill",
    claim: str = "A claim worth keeping",
    front: str = "confidence: 0.8\n",
    body: str = "",
) -> str:
    head = f"id: {insight_id}\n" if insight_id else ""
    head += f"type: {kind}\n" if kind else ""
    return f"---\n{head}{front}---\n\n{claim}\n{body}"


@pytest.fixture
def seeded(run: Run, store: Path) -> Path:
    run("init", "--seed")
    return store


def put(store: Path, path: str, text: str) -> str:
    target = store / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return path


def check_json(run: Run, *args: str, expect: int = 0) -> Any:
    return json.loads(run("check", *args, "--format", "json", expect=expect).stdout)


def only(report: Any) -> dict[str, Any]:
    assert report["warnings"] == []
    [error] = report["errors"]
    assert isinstance(error, dict)
    return error


# ---------------------------------------------------------------- a clean store


def test_a_clean_store_passes(run: Run, seeded: Path) -> None:
    count = len(list((seeded / "insights").rglob("*.md")))
    result = run("check")
    assert result.stdout == f"✓ {count} insight files checked: no problems\n"
    assert check_json(run) == {
        "files": count,
        "errors": [],
        "warnings": [],
        "judgedByWords": 0,
        "judgedWithoutAlignment": 0,
    }


def test_an_empty_store_passes_and_a_missing_one_is_an_error(run: Run, store: Path) -> None:
    run("init")
    assert run("check").stdout == "✓ 0 insight files checked: no problems\n"
    shutil.rmtree(store)
    result = run("check", expect=1)
    assert result.stderr == f"Error: no store at {store}: the folder does not exist\n"


# ---------------------------------------------------------------- errors, one by one

BROKEN = [
    # (file text, field, kind, words in the message, the fix)
    (
        "no frontmatter here\n",
        "frontmatter",
        "parse",
        "does not start with a '---'",
        "begin the file with a '---' line, then 'key: value' lines, then '---'",
    ),
    (
        "---\nid: x\ntype: skill\nconfidence: 0.8\n",
        "frontmatter",
        "parse",
        "no closing '---'",
        "begin the file with a '---' line, then 'key: value' lines, then '---'",
    ),
    (
        insight_text(front="confidence: [0.8\n"),
        "frontmatter",
        "parse",
        "frontmatter YAML does not parse",
        "correct the YAML between the two '---' lines",
    ),
    (
        insight_text(claim=""),
        "claim",
        "invalid",
        "claim must be a non-empty text",
        "write the claim as the first paragraph after the closing '---'",
    ),
    (
        insight_text(kind="skil"),
        "type",
        "invalid",
        "invalid type 'skil' (allowed: behavioral, personality, relational, principle, "
        "skill, trigger)",
        "set type to one of them",
    ),
    (
        insight_text(front="confidence: 0.8\nprovenance: hearsay\n"),
        "provenance",
        "invalid",
        "invalid provenance 'hearsay'",
        "set provenance to one of them, or remove the line",
    ),
    (
        insight_text(front="confidence: 1.5\n"),
        "confidence",
        "invalid",
        "confidence must be between 0 and 1, got 1.5",
        "set confidence to a number from 0 to 1",
    ),
    (
        insight_text(front="confidence: high\n"),
        "confidence",
        "invalid",
        "confidence must be a number from 0 to 1",
        "set confidence to a number from 0 to 1",
    ),
    (
        insight_text(front="tags:\n- a\n"),
        "confidence",
        "invalid",
        "confidence is missing",
        "set confidence to a number from 0 to 1",
    ),
    (
        insight_text(kind="trigger"),
        "condition",
        "invalid",
        "a trigger needs a condition",
        "add a line 'condition: <the situation it is for>'",
    ),
    (
        insight_text(front="confidence: 0.8\ncondition: when tests fail\n"),
        "condition",
        "invalid",
        "condition and avoid apply only to triggers",
        "remove condition and avoid, or set type: trigger",
    ),
    (
        # qa39: the fix was "remove condition and avoid, or set type: trigger", for a
        # file that is a trigger already
        insight_text(kind="trigger", front="confidence: 0.8\ncondition: [tests, fail]\n"),
        "condition",
        "invalid",
        "condition must be text, got ['tests', 'fail']",
        "make condition one line of text: the situation the trigger is for",
    ),
    (
        # qa39: check said "no problems" of a file every write (reinforce, merge,
        # update) refuses, as it read the file without its evidence log
        insight_text(front="confidence: 0.8\nevidence: {a: 1}\n"),
        "evidence",
        "invalid",
        "evidence must be a list of lines, one per reinforcement",
        "write evidence as a list, one '- <time> <who>@<host> <token>' line each, or remove it",
    ),
    (
        insight_text(front="confidence: 0.8\ncreated: yesterday\n"),
        "created",
        "invalid",
        "created must be an ISO 8601 time",
        "write a time such as 2026-11-29T12:00:00Z",
    ),
    (
        insight_text(front="confidence: 0.8\nreinforcements: -1\n"),
        "reinforcements",
        "invalid",
        "reinforcements must be a whole number",
        "set reinforcements to a whole number, 0 or more",
    ),
    (
        insight_text(insight_id="../escape"),
        "id",
        "invalid",
        "invalid id '../escape'",
        "use only letters, digits, '-', '_' and '.', and name the file <id>.md",
    ),
]


@pytest.mark.parametrize(("text", "field", "kind", "words", "fix"), BROKEN)
def test_each_broken_file_is_an_error_naming_field_and_fix(
    run: Run, seeded: Path, text: str, field: str, kind: str, words: str, fix: str
) -> None:
    path = put(seeded, "insights/skill/x.md", text)
    error = only(check_json(run, expect=1))
    assert (error["path"], error["field"], error["kind"]) == (path, field, kind)
    assert words in error["message"]
    assert (error["fix"], error["severity"]) == (fix, "error")


def test_the_human_output_is_one_line_per_finding_and_a_summary(run: Run, seeded: Path) -> None:
    count = len(list((seeded / "insights").rglob("*.md")))
    put(seeded, "insights/skill/x.md", insight_text(kind="skil"))
    put(seeded, "insights/skill/y.md", insight_text("y", front="confidence: 2\n"))
    result = run("check", expect=1)
    assert result.stdout.splitlines() == [
        "insights/skill/x.md: type: invalid type 'skil' (allowed: behavioral, personality, "
        "relational, principle, skill, trigger); fix: set type to one of them",
        "insights/skill/y.md: confidence: confidence must be between 0 and 1, got 2; "
        "fix: set confidence to a number from 0 to 1",
        f"✗ 2 errors, 0 warnings in {count + 2} files",
    ]
    assert result.stderr == ""


def test_a_file_that_is_not_utf8_is_an_error(run: Run, seeded: Path) -> None:
    (seeded / "insights" / "skill" / "x.md").write_bytes(b"---\ntype: skill\n\xff\xfe---\n")
    error = only(check_json(run, expect=1))
    assert (error["field"], error["message"], error["fix"]) == (
        "file",
        "is not UTF-8 text",
        "save it as UTF-8",
    )


def test_a_file_may_leave_out_its_id_and_type(run: Run, seeded: Path) -> None:
    put(seeded, "insights/principle/handmade.md", insight_text(insight_id="", kind=""))
    assert check_json(run)["errors"] == []


def test_a_misspelt_key_is_a_warning_naming_the_key_it_meant(run: Run, seeded: Path) -> None:
    """A key chitin does not know is kept as the person wrote it, so a typo (tagz,
    confidance) would quietly lose the field; a key of one's own (owner) is no typo."""
    front = "confidence: 0.8\ntagz: [ci]\nowner: ana\n"
    put(seeded, "insights/skill/x.md", insight_text(front=front))
    report = check_json(run)
    assert report["errors"] == []
    [warning] = report["warnings"]
    assert (warning["field"], warning["kind"]) == ("tagz", "unknown-key")
    assert warning["message"] == "tagz is not a key chitin reads (did you mean tags?)"
    assert warning["fix"] == "rename it to tags"


def test_a_body_field_written_as_a_key_is_a_warning_naming_its_section(
    run: Run, seeded: Path
) -> None:
    """qa60: `reasoning: ...` (the name `update --reasoning` and the JSON give it) in
    the frontmatter was read as nothing: `get` showed no reasoning, and check, which
    warns of `tagz`, said nothing. The reasoning, context, limitations and the claim
    live in the body; a key of their name is named, with where its text goes."""
    front = "confidence: 0.8\nReasoning: it keeps diffs small\ncontext: any repo\nclaim: x\n"
    put(seeded, "insights/skill/x.md", insight_text(front=front))
    report = check_json(run)
    assert report["errors"] == []
    found = {w["field"]: (w["message"], w["fix"], w["kind"]) for w in report["warnings"]}
    assert found == {
        "Reasoning": (
            "Reasoning is not a key chitin reads: the reasoning is the body's "
            "'## Reasoning' section, so this text is never read",
            "move the text under a '## Reasoning' heading",
            "unknown-key",
        ),
        "context": (
            "context is not a key chitin reads: the context is the body's "
            "'## Context' section, so this text is never read",
            "move the text under a '## Context' heading",
            "unknown-key",
        ),
        "claim": (
            "claim is not a key chitin reads: the claim is the body's first paragraph, "
            "so this text is never read",
            "make the text the first paragraph after the closing '---', or remove the key",
            "unknown-key",
        ),
    }


# ---------------------------------------------------------------- where a file lives


def test_an_id_must_match_the_file_name(run: Run, seeded: Path) -> None:
    put(seeded, "insights/skill/file-name.md", insight_text("other-id"))
    error = only(check_json(run, expect=1))
    assert (error["field"], error["kind"]) == ("id", "layout")
    assert error["message"] == "id 'other-id' does not match the file name file-name.md"
    assert error["fix"] == "rename the file to other-id.md, or set id: file-name"


def test_a_type_must_match_its_folder(run: Run, seeded: Path) -> None:
    put(seeded, "archive/trigger/x.md", insight_text(kind="skill"))
    error = only(check_json(run, expect=1))
    assert (error["path"], error["field"], error["kind"]) == (
        "archive/trigger/x.md",
        "type",
        "layout",
    )
    assert error["message"] == "type 'skill' does not match the folder archive/trigger/"
    assert error["fix"] == "move it to archive/skill/x.md, or set type: trigger"


def test_a_folder_named_like_an_insight_file_is_reported(run: Run, seeded: Path) -> None:
    """get and reinforce name such a folder as an insight that cannot be read; check
    says so too, with the path, why and the fix, whole store or the folder named."""
    (seeded / "insights/skill/some-id.md").mkdir()
    (seeded / "archive/team/old.md").mkdir(parents=True)
    report = check_json(run, expect=1)
    found = [(e["path"], e["field"], e["kind"]) for e in report["errors"]]
    assert found == [
        ("archive/team/old.md", "file", "parse"),
        ("insights/skill/some-id.md", "file", "parse"),
    ]
    error = report["errors"][1]
    assert error["message"] == "is a folder, not an insight file: chitin does not read it"
    assert error["fix"] == "move the folder away, and put the insight's file there"
    named = check_json(run, str(seeded / "insights/skill/some-id.md"), expect=1)
    [error] = named["errors"]  # the path as given, as for the files named
    assert error["path"].endswith("insights/skill/some-id.md")
    assert error["message"] == "is a folder, not an insight file: chitin does not read it"


def test_folders_of_ones_own_may_hold_any_type(run: Run, seeded: Path) -> None:
    """chitin reads insight files anywhere under insights/ (README: sub-folders by
    person or project); only a type folder must match the type."""
    put(seeded, "insights/x.md", insight_text())
    put(seeded, "insights/team-ana/y.md", insight_text("y"))
    put(seeded, "insights/skill/by-project/z.md", insight_text("z"))
    report = check_json(run)
    assert [e for e in report["errors"] if e["kind"] == "layout"] == []


def test_a_type_folder_must_hold_its_type(run: Run, seeded: Path) -> None:
    put(seeded, "insights/principle/y.md", insight_text("y"))
    report = check_json(run, expect=1)
    found = [(e["path"], e["field"], e["fix"]) for e in report["errors"]]
    assert found == [
        (
            "insights/principle/y.md",
            "type",
            "move it to insights/skill/y.md, or set type: principle",
        )
    ]


def test_the_sharded_layout_is_accepted_where_the_store_puts_files(run: Run, seeded: Path) -> None:
    (seeded / "chitin.yaml").write_text("shard: true\n")
    insight = Store(seeded).read("insights/skill/" + _first_skill(seeded))[0]
    expected = Store(seeded).path_for(insight)  # what chitin itself writes
    assert expected.split("/")[2] == shard_folder(insight.id)
    put(seeded, expected, (seeded / "insights/skill" / _first_skill(seeded)).read_text())
    (seeded / "insights/skill" / _first_skill(seeded)).unlink()
    assert check_json(run)["errors"] == []
    wrong = "00" if shard_folder(insight.id) != "00" else "01"
    (seeded / expected).rename(_moved(seeded, expected, wrong))
    error = only(check_json(run, expect=1))
    assert (error["field"], error["kind"], error["fix"]) == (
        "path",
        "layout",
        f"move it to {expected}",
    )
    assert error["message"] == f"{wrong}/ is not the shard folder of this id"


def _first_skill(store: Path) -> str:
    return sorted(p.name for p in (store / "insights" / "skill").glob("*.md"))[0]


def _moved(store: Path, path: str, bucket: str) -> Path:
    parts = path.split("/")
    target = store.joinpath(*parts[:2], bucket, parts[3])
    target.parent.mkdir(parents=True)
    return target


def test_a_duplicate_id_is_an_error_on_both_files(run: Run, seeded: Path) -> None:
    put(seeded, "insights/skill/twin.md", insight_text("twin", claim="Live twin claim"))
    put(seeded, "archive/skill/twin.md", insight_text("twin", claim="Archived twin"))
    report = check_json(run, expect=1)
    assert [(e["path"], e["kind"], e["message"]) for e in report["errors"]] == [
        (
            "archive/skill/twin.md",
            "duplicate-id",
            "id 'twin' is also used by insights/skill/twin.md",
        ),
        (
            "insights/skill/twin.md",
            "duplicate-id",
            "id 'twin' is also used by archive/skill/twin.md",
        ),
    ]
    assert report["errors"][0]["fix"] == (
        "give one of them another id (and file name), or delete the copy"
    )


def test_ids_that_differ_only_by_case_are_an_error_on_both_files(run: Run, seeded: Path) -> None:
    """fix135: `Upper-AAAA` beside `upper-aaaa` are one file name on macOS and Windows:
    a clone there keeps one of the two files, and its next commit replaces the other."""
    upper = put(seeded, "insights/skill/Upper-AAAA.md", insight_text("Upper-AAAA", claim="Up"))
    lower = put(seeded, "archive/skill/upper-aaaa.md", insight_text("upper-aaaa", claim="Low"))
    report = check_json(run, expect=1)
    found = [(e["path"], e["kind"], e["message"]) for e in report["errors"]]
    assert found == [
        (
            lower,
            "duplicate-id",
            f"id 'upper-aaaa' differs only by case from 'Upper-AAAA' ({upper}): one id "
            "on a case-insensitive file system (macOS, Windows)",
        ),
        (
            upper,
            "duplicate-id",
            f"id 'Upper-AAAA' differs only by case from 'upper-aaaa' ({lower}): one id "
            "on a case-insensitive file system (macOS, Windows)",
        ),
    ]
    assert report["errors"][0]["fix"] == (
        "give one of them another id (and file name), or fold one into the other (chitin merge)"
    )
    focused = check_json(run, str(seeded / upper), expect=1)["errors"]
    assert [e["path"].endswith(upper) for e in focused] == [True]  # the other is not named


def test_a_copied_file_is_not_offered_a_merge_of_an_insight_into_itself(
    run: Run, seeded: Path
) -> None:
    """A copy under another name holds the same id and claim: the repeated claim is
    worth a warning, but `chitin merge <id> <id>` is no fix for it."""
    put(seeded, "insights/skill/twin.md", insight_text("twin", claim="Keep every twin"))
    put(seeded, "insights/skill/copy.md", insight_text("twin", claim="Keep every twin"))
    report = check_json(run, expect=1)
    fixes = [w["fix"] for w in report["warnings"] if w["kind"] == "near-duplicate"]
    assert fixes and "chitin merge twin twin" not in " ".join(fixes), fixes
    assert all("delete the copy" in fix for fix in fixes), fixes


# ---------------------------------------------------------------- credentials


def test_a_credential_anywhere_in_a_file_is_an_error(run: Run, seeded: Path) -> None:
    text = insight_text(
        front="confidence: 0.8\nnotes: 'api_key: a8f5f167f44f4964e6c998dee827110c'\n",
        body=f"\n## Reasoning\n\nIt worked.\n\n## Deploy notes\n\nuse {TOKEN}\n",
    )
    put(seeded, "insights/skill/x.md", text)
    result = run("check", "--format", "json", expect=1)
    report = json.loads(result.stdout)
    assert [(e["field"], e["kind"], e["message"]) for e in report["errors"]] == [
        ("notes", "secret", "line 5 looks like it holds a password or secret"),
        ("body", "secret", "line 16 looks like it holds a GitHub token"),
    ]
    assert report["errors"][0]["fix"] == (
        "delete it from the file, and revoke it if it was ever committed or pushed"
    )
    assert TOKEN not in result.stdout and "a8f5f167" not in result.stdout


def test_a_credential_in_a_file_that_does_not_parse_is_still_found(run: Run, seeded: Path) -> None:
    put(seeded, "insights/skill/x.md", f"password = 'Tr0ub4dor&3'\n{TOKEN}\n")
    report = check_json(run, expect=1)
    assert [(e["field"], e["kind"]) for e in report["errors"]] == [
        ("frontmatter", "parse"),
        ("claim", "secret"),
        ("claim", "secret"),
    ]


def test_a_credential_is_named_by_the_field_that_holds_it(run: Run, seeded: Path) -> None:
    text = insight_text(
        claim=f"Call it with {TOKEN}",
        front="confidence: 0.8\ntags:\n- ci\n- AKIA" + "IOSFODNN7EXAMPLE\n",
        body="\n## Limitations\n\nNot with Bearer " + "0123456789abcdefABCDEF\n",
    )
    put(seeded, "insights/skill/x.md", text)
    report = check_json(run, expect=1)
    assert [(e["field"], e["message"]) for e in report["errors"]] == [
        ("tags", "line 7 looks like it holds an AWS access key"),
        ("claim", "line 10 looks like it holds a GitHub token"),
        ("limitations", "line 14 looks like it holds a bearer token"),
    ]


# ---------------------------------------------------------------- warnings


def test_near_duplicates_and_conflicts_are_warnings(run: Run, add: Any, store: Path) -> None:
    first = add("skill", "Keep commit messages short and focused on why", 0.8)
    second = add("skill", "Always keep commit messages short and focused on why", 0.7, force=True)
    verbose = add("principle", "Be verbose when you explain code changes", 0.7)
    concise = add("principle", "Be concise when you explain code changes", 0.7, force=True)
    add("skill", "Something unrelated about databases and indexes", 0.7)
    result = run("check")
    report = json.loads(run("check", "--format", "json").stdout)
    assert report["errors"] == []
    assert [(w["kind"], w["severity"], w["field"]) for w in report["warnings"]] == [
        ("conflict", "warning", "claim"),
        ("near-duplicate", "warning", "claim"),
    ]
    conflict, duplicate = report["warnings"]
    # A pair is reported once, on the later of its two files.
    assert conflict["path"] == f"insights/principle/{verbose['id']}.md"
    assert conflict["message"].startswith(
        f"claim conflicts with insights/principle/{concise['id']}.md ("
    )
    assert '"concise" ↔ "verbose"' in conflict["message"]
    assert duplicate["path"] == f"insights/skill/{first['id']}.md"  # the stronger
    assert duplicate["message"] == (
        f"claim nearly duplicates 1 other file: insights/skill/{second['id']}.md"
    )
    assert duplicate["fix"] == f"fold one into the other: chitin merge {second['id']} {first['id']}"
    assert result.stdout.splitlines()[-1] == "✓ 5 insight files checked: no errors, 2 warnings"
    assert ": warning: claim: claim nearly duplicates" in result.stdout


def test_a_file_named_is_told_of_its_clusters_conflict(run: Run, add: Any, store: Path) -> None:
    """fix100: a conflict is between the strongest members of two clusters, and `check
    FILE` reported it only when FILE was the strongest: any member's file names it."""
    strong = add("principle", "Be concise when you explain code changes", 0.8)
    weak = add("principle", "Always be concise when you explain code changes", 0.6, force=True)
    verbose = add("principle", "Be verbose when you explain code changes", 0.7, force=True)
    whole = [(w["kind"], w["path"]) for w in check_json(run)["warnings"]]
    assert ("near-duplicate", f"insights/principle/{strong['id']}.md") in whole
    assert any(kind == "conflict" for kind, _ in whole), whole
    for named, other in ((weak, verbose), (strong, verbose), (verbose, strong)):
        path = store / f"insights/principle/{named['id']}.md"
        found = [w for w in check_json(run, str(path))["warnings"] if w["kind"] == "conflict"]
        assert len(found) == 1, (named["claim"], found)
        assert found[0]["path"].endswith(f"insights/principle/{named['id']}.md")
        assert f"conflicts with insights/principle/{other['id']}.md (" in found[0]["message"]


@pytest.mark.parametrize("strongest", [1, 3])
def test_a_conflict_names_the_file_whose_words_it_quotes(
    run: Run, add: Any, store: Path, strongest: int
) -> None:
    """fix111: with one side a cluster of near duplicates, the warning named the
    cluster's strongest file but quoted another member's words ("conflicts with
    boss-prefers-verbose-detailed… ("thorough" ↔ "brief" …)", words that file lacks)."""
    concise = add("relational", "Boss values concise brief responses", 0.8)
    variants = [
        add("relational", claim, 0.95 if number == strongest else 0.8, force=True)
        for number, claim in enumerate(
            (
                "Boss prefers verbose detailed explanations",
                "Boss likes thorough, verbose answers",
                "Boss wants long detailed replies",
            ),
            1,
        )
    ]
    run("embed")
    claims = {f"insights/relational/{i['id']}.md": i["claim"] for i in [concise, *variants]}
    found = [w for w in check_json(run)["warnings"] if w["kind"] == "conflict"]
    assert found, check_json(run)
    for warning in found:
        named = re.match(r"claim conflicts with (\S+) \((.*)\)$", warning["message"])
        assert named is not None, warning["message"]
        pairs = re.findall(r'"(\w+)" ↔ "(\w+)"', named[2])
        words = re.findall(r"\w+", f"{claims[warning['path']]} {claims[named[1]]}".lower())
        for quoted in {word for pair in pairs for word in pair}:  # "detail" of "detailed"
            assert any(word.startswith(quoted) for word in words), (warning, words)


def test_archived_insights_raise_no_warnings(run: Run, add: Any) -> None:
    first = add("skill", "Run the linter before pushing a branch", 0.8)
    add("skill", "Run the linter before pushing any branch", 0.8, force=True)
    run("archive", first["id"])
    assert check_json(run)["warnings"] == []


def test_errors_and_warnings_together_exit_1(run: Run, add: Any, store: Path) -> None:
    add("skill", "Write the failing test before the fix", 0.8)
    add("skill", "Write the failing test before the fix!", 0.8, force=True)
    put(store, "insights/skill/x.md", insight_text(kind="skil"))
    result = run("check", expect=1)
    assert result.stdout.splitlines()[-1] == "✗ 1 error, 1 warning in 3 files"


# ---------------------------------------------------------------- pre-commit: file arguments


def test_file_arguments_check_only_those_files(run: Run, seeded: Path) -> None:
    bad = put(seeded, "insights/skill/bad.md", insight_text("bad", kind="skil"))
    good = put(seeded, "insights/skill/good.md", insight_text("good", claim="A fine claim"))
    report = check_json(run, str(seeded / good), str(seeded / "README.md"))
    # the starter insights have vectors (init --seed); good.md, the one checked, has none
    assert report == {
        "files": 1,
        "errors": [],
        "warnings": [],
        "judgedByWords": 1,
        "judgedWithoutAlignment": 0,
    }
    # named files are reported from the current folder (the test's, above the store)
    assert only(check_json(run, str(seeded / bad), expect=1))["path"] == f"store/{bad}"


def test_file_arguments_still_find_a_duplicate_id_in_the_whole_store(
    run: Run, seeded: Path
) -> None:
    put(seeded, "archive/skill/twin.md", insight_text("twin", claim="An old one"))
    new = put(seeded, "insights/skill/twin.md", insight_text("twin", claim="A new one"))
    error = only(check_json(run, str(seeded / new), expect=1))
    assert (error["path"], error["message"]) == (
        f"store/{new}",
        "id 'twin' is also used by archive/skill/twin.md",
    )


def test_file_arguments_warn_about_pairs_with_those_files_only(
    run: Run, add: Any, store: Path
) -> None:
    add("skill", "Pin dependency versions in every lock file", 0.8)
    add("skill", "Pin dependency versions in every lock file now", 0.8, force=True)
    new = put(store, "insights/skill/n.md", insight_text("n", claim="Unrelated words entirely"))
    assert check_json(run, str(store / new))["warnings"] == []
    assert len(check_json(run)["warnings"]) == 1


def test_a_folder_argument_checks_the_insight_files_under_it(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`chitin check insights/skill` printed "✓ 0 insight files checked: no problems"
    over a broken file there (qa80): a folder was not an insight file, so ignored."""
    bad = put(seeded, "insights/skill/bad.md", insight_text("bad", kind="skil"))
    put(seeded, "insights/principle/fine.md", insight_text("fine", kind="principle"))
    skills = len(list((seeded / "insights/skill").glob("*.md")))
    report = check_json(run, str(seeded / "insights/skill"), expect=1)
    assert (report["files"], only(report)["path"]) == (skills, f"store/{bad}")
    assert check_json(run, str(seeded / "insights/principle"))["errors"] == []
    assert check_json(run, str(seeded), expect=1)["files"] == check_json(run, expect=1)["files"]
    monkeypatch.chdir(seeded / "insights")
    assert check_json(run, ".", expect=1)["files"] == check_json(run, expect=1)["files"]


def test_a_missing_insight_file_argument_is_an_error(run: Run, seeded: Path) -> None:
    result = run("check", str(seeded / "insights/skill/gone.md"), expect=1)
    assert result.stderr == f"Error: no such insight file: {seeded / 'insights/skill/gone.md'}\n"


@pytest.mark.parametrize("typo", ["insights/skil", "insigths/skill/x.md", "READNE.md"])
def test_a_path_argument_that_does_not_exist_is_an_error(run: Run, seeded: Path, typo: str) -> None:
    """A mistyped folder or file passed "✓ 0 insight files checked: no problems", exit
    0: a CI step or a hook with a typo checked nothing, and said all was well."""
    result = run("check", str(seeded / typo), expect=1)
    assert result.stderr == f"Error: no such file or folder: {seeded / typo}\n"


def test_in_a_store_checkout_paths_are_relative_to_here_and_no_store_is_needed(
    seeded: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    put(seeded, "insights/skill/bad.md", insight_text("bad", kind="skil"))
    monkeypatch.chdir(seeded / "insights")  # a store is found from its folders too
    runner = CliRunner()
    result = runner.invoke(cli, ["check", "skill/bad.md", "../README.md"])
    assert result.exit_code == 1
    assert result.stdout.startswith("skill/bad.md: type: invalid type 'skil'")  # from here
    assert result.stdout.splitlines()[-1] == "✗ 1 error, 0 warnings in 1 file"
    assert runner.invoke(cli, ["check", "skill/"]).exit_code == 1  # a folder: its files
    # $CHITIN_STORE comes first, as for every command; pre-commit's hook names the
    # checkout it runs in (.pre-commit-hooks.yaml: `chitin check --store .`).
    monkeypatch.setenv("CHITIN_STORE", str(tmp_path / "elsewhere"))
    monkeypatch.chdir(seeded)
    entry = (Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text()
    assert "entry: chitin check --store .\n" in entry
    result = runner.invoke(cli, ["check", "--store", ".", "insights/skill/bad.md"])
    assert result.exit_code == 1 and result.stdout.startswith("insights/skill/bad.md: type:")


def test_a_store_in_a_folder_of_the_repository_is_reported_by_the_paths_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix82: pre-commit with the store in a folder of the repository (docs/checking.md:
    `args: [--store, personality]`) passes the changed files from the repository's top;
    check printed them relative to the store (`insights/skill/bad.md`), a path that is
    not there from where the user stands. Named files are reported as linters do,
    relative to the current folder, in text and JSON."""
    repository = tmp_path / "repository"
    repository.mkdir()
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    store = repository / "personality"
    put(store, "insights/skill/bad.md", insight_text("bad", kind="skil"))
    put(store, "insights/skill/good.md", insight_text("good", claim="Another claim"))
    (store / "chitin.yaml").write_text("half_lives: {social: -3}\n")
    monkeypatch.chdir(repository)
    given = ["personality/insights/skill/bad.md", "personality/chitin.yaml"]
    runner = CliRunner()
    text = runner.invoke(cli, ["check", "--store", "personality", *given])
    found = runner.invoke(cli, ["check", "--store", "personality", *given, "--format", "json"])
    assert text.exit_code == found.exit_code == 1, text.output
    assert [line.split(":")[0] for line in text.stdout.splitlines()[:2]] == given[::-1]
    assert [e["path"] for e in json.loads(found.stdout)["errors"]] == given[::-1]
    monkeypatch.chdir(store / "insights")  # from a folder of the store: from there too
    inside = runner.invoke(cli, ["check", "--store", "..", "skill/bad.md", "--format", "json"])
    assert [e["path"] for e in json.loads(inside.stdout)["errors"]] == ["skill/bad.md"]


def test_check_takes_store_after_the_command_too(seeded: Path, tmp_path: Path) -> None:
    put(seeded, "insights/skill/bad.md", insight_text("bad", kind="skil"))
    result = CliRunner().invoke(cli, ["check", "--store", str(seeded)])
    assert result.exit_code == 1 and "insights/skill/bad.md" in result.stdout


def test_a_fresh_clone_is_checked_without_a_cache_and_nothing_is_written(
    run: Run, seeded: Path, tmp_path: Path
) -> None:
    put(seeded, "insights/skill/bad.md", insight_text("bad", kind="skil"))
    git(seeded, "add", "-A")
    git(seeded, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "bad")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(seeded), str(clone)], check=True)
    before = commit_count(clone)
    result = CliRunner().invoke(cli, ["--store", str(clone), "check", "--format", "json"])
    assert result.exit_code == 1
    assert [e["path"] for e in json.loads(result.stdout)["errors"]] == ["insights/skill/bad.md"]
    assert not (clone / ".chitin").exists()
    assert commit_count(clone) == before
    assert git(clone, "status", "--porcelain", "--ignored") == ""


def test_the_pre_commit_hook_definition() -> None:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "chitin-check"
    assert (hook["entry"], hook["language"], hook["pass_filenames"]) == (
        "chitin check --store .",
        "python",
        True,
    )
    assert hook["files"] == r"^((insights|archive)/.*\.md|chitin\.yaml|templates/PERSONALITY\.md)$"


# ---------------------------------------------------------------- clusters


def test_near_identical_files_are_one_line_naming_the_strongest(
    run: Run, store: Path, add: Any
) -> None:
    """Issue 25: 19 files differing by a number gave 80 warning lines."""
    add("skill", "Unrelated: keep the changelog current", 0.7)  # makes the store
    for n in range(19):
        claim = f"Deploy service {n} after the smoke tests pass"
        front = f"confidence: 0.8\nreinforcements: {n % 5}\n"
        put(
            store,
            f"insights/skill/deploy-{n:02}.md",
            insight_text(f"deploy-{n:02}", claim=claim, front=front),
        )
    warnings = check_json(run)["warnings"]
    assert len(warnings) == 1
    (cluster,) = warnings
    assert cluster["kind"] == "near-duplicate" and cluster["path"] == "insights/skill/deploy-04.md"
    assert cluster["message"].startswith("claim nearly duplicates 18 other files: ")
    assert cluster["message"].endswith(" and 15 more")
    assert cluster["fix"] == "fold them into the strongest, deploy-04: chitin dedupe --apply"


def test_exact_repeats_and_paraphrase_free_conflicts_are_found_by_words(
    run: Run, store: Path, add: Any
) -> None:
    one = add("skill", "Use mocks in unit tests", 0.8)
    two = add("skill", "Use mocks in unit tests!", 0.5, force=True)
    never = add("skill", "Never use mocks in unit tests", 0.6)
    warnings = {w["kind"]: w for w in check_json(run)["warnings"]}
    assert warnings["near-duplicate"]["message"] == (
        f"claim repeats 1 other file: insights/skill/{two['id']}.md"
    )
    assert warnings["near-duplicate"]["fix"] == (
        f"fold one into the other: chitin merge {two['id']} {one['id']}"
    )
    conflict = warnings["conflict"]  # with the cluster, once: on its strongest member
    assert {conflict["path"], conflict["message"].split(" (")[0].split()[-1]} == {
        f"insights/skill/{never['id']}.md",
        f"insights/skill/{one['id']}.md",
    }


def test_a_claim_that_turns_down_what_another_takes_is_a_conflict_in_check(
    run: Run, store: Path, add: Any
) -> None:
    """Neither is negated, no pole, one compares: check's pre-filter used to leave the
    pair unjudged, where contribute reports the conflict (retrieval/rejection.py)."""
    env = add("skill", "Configure the build through environment variables", 0.8)
    config = add(
        "skill",
        "Configure the build through a checked-in config file rather than environment variables",
        0.7,
    )
    (conflict,) = check_json(run)["warnings"]
    assert conflict["kind"] == "conflict"
    assert {conflict["path"], conflict["message"].split(" (")[0].split()[-1]} == {
        f"insights/skill/{env['id']}.md",
        f"insights/skill/{config['id']}.md",
    }
    assert '" ↔ "not ' in conflict["message"]


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        (
            "Tap water in this building is safe to drink unfiltered",
            "Tap water in this building is not safe to drink unfiltered",
            "negated ↔ affirmed",
        ),
        ("Bake the pie with the foil on", "Bake the pie with the foil off", '"on" ↔ "off"'),
        (
            "Show the demo first, then explain the design",
            "Explain the design first, then show the demo",
            " before ",
        ),
    ],
)
def test_a_stance_turned_where_the_stance_does_not_read_is_a_conflict_in_check(
    run: Run, store: Path, add: Any, first: str, second: str, reason: str
) -> None:
    """A negation past the stance's reach, a particle, steps in another order: neither
    side negated, no pole, no comparison, so check's pre-filter left such a pair
    unjudged where contribute reports the conflict (retrieval/framed.py)."""
    one, other = add("skill", first, 0.8), add("skill", second, 0.7)
    (conflict,) = check_json(run)["warnings"]
    assert conflict["kind"] == "conflict"
    assert {conflict["path"], conflict["message"].split(" (")[0].split()[-1]} == {
        f"insights/skill/{one['id']}.md",
        f"insights/skill/{other['id']}.md",
    }
    assert all(part in conflict["message"] for part in reason.split(" ↔ "))


# ---------------------------------------------------------------- chitin.yaml

SETTINGS_CASES = [
    (
        "embedding: {provider: none\n",
        "chitin.yaml: file: does not parse (line 2): ",
        "parse",
    ),
    (
        "- a list\n",
        "chitin.yaml: file: must be a mapping of settings; fix: correct the YAML",
        "parse",
    ),
    (
        "half_lives: {social: -3}\n",
        "chitin.yaml: half_lives: social must be a positive number, got -3; "
        "fix: correct the value, or remove the setting to have its default",
        "invalid",
    ),
    (
        "type_boosts: {coding: {skill: x}}\n",
        "chitin.yaml: type_boosts: coding.skill must be a finite number of 0 or more, got 'x'",
        "invalid",
    ),
    (
        "relevance_weights: {colour: 1}\n",
        "chitin.yaml: relevance_weights: unknown key 'colour' (allowed: ",
        "invalid",
    ),
    (
        "embedding: {provider: nonsense}\n",
        "chitin.yaml: embedding: provider: unknown provider 'nonsense' "
        "(allowed: local, voyage, openai, none)",
        "invalid",
    ),
    (  # every retrieve and embed refuses it (qa80): so must check
        "embedding: {provider: local, model: text-embedding-3-small}\n",
        "chitin.yaml: embedding: model: the local provider has one model, all-MiniLM-L6-v2; "
        "got 'text-embedding-3-small'; fix: ",
        "invalid",
    ),
    (
        "embedding: {model: nomic-embed-text}\n",  # no provider: the local one
        "chitin.yaml: embedding: model: the local provider has one model, all-MiniLM-L6-v2; "
        "got 'nomic-embed-text'; fix: ",
        "invalid",
    ),
    (
        "embedding: {background: 'no'}\n",
        "chitin.yaml: embedding: background must be true or false, got 'no'",
        "invalid",
    ),
    (
        "carapace: {url: 'ftp://example.com'}\n",
        "chitin.yaml: carapace: the Carapace URL must be an http or https URL",
        "invalid",
    ),
    ("shard: 1\n", "chitin.yaml: shard: must be true or false, got 1", "invalid"),
    (  # a merge stopped on it (qa33): say so, and how to finish it, not a YAML error
        "retrieval:\n<<<<<<< ours\n  budget: 100\n=======\n  budget: 200\n>>>>>>> theirs\n",
        "chitin.yaml: file: holds git conflict markers (lines 2, 4, 6); "
        "fix: resolve the conflict: keep one side, remove the marker lines",
        "parse",
    ),
]


@pytest.mark.parametrize(("settings", "line", "kind"), SETTINGS_CASES)
def test_a_setting_chitin_cannot_use_is_an_error(
    run: Run, seeded: Path, settings: str, line: str, kind: str
) -> None:
    (seeded / "chitin.yaml").write_text(settings)
    result = run("check", expect=1)
    assert result.stdout.startswith(line)
    assert result.stdout.splitlines()[-1].startswith("✗ 1 error, 0 warnings")
    assert only(check_json(run, expect=1))["kind"] == kind
    assert not (seeded / ".chitin" / "config.json").exists()  # read from the file itself


def test_a_setting_nobody_reads_is_a_warning(run: Run, seeded: Path) -> None:
    (seeded / "chitin.yaml").write_text(
        "shard: false\nhalf_live: {social: 3}\nembedding: {provider: none, modle: x}\n"
    )
    result = run("check")
    assert result.stdout.splitlines()[:2] == [
        "chitin.yaml: warning: embedding: modle is not a setting chitin reads "
        "(allowed: provider, model, background); fix: correct the name, or remove it",
        "chitin.yaml: warning: half_live: is not a setting chitin reads (allowed: half_lives, "
        "type_boosts, relevance_weights, embedding, carapace, shard); "
        "fix: correct the name, or remove it",
    ]
    assert [w["kind"] for w in check_json(run)["warnings"]] == ["unknown-setting"] * 2


def test_a_store_without_chitin_yaml_or_with_every_setting_passes(run: Run, seeded: Path) -> None:
    assert "chitin.yaml" not in run("check").stdout
    (seeded / "chitin.yaml").write_text(
        "half_lives: {social: 20, directive: null}\n"
        "type_boosts: {coding: {skill: 2}}\n"
        "relevance_weights: {tags: 2}\n"
        "embedding: {provider: none, model: x, background: false}\n"
        "carapace: {url: 'https://example.com/api/v1', personal_tags: [mel]}\n"
        "shard: true\n"
    )
    expected = {"files": check_json(run)["files"], "errors": [], "warnings": []}
    assert check_json(run) == {**expected, "judgedByWords": 0, "judgedWithoutAlignment": 0}


def test_pre_commit_checks_chitin_yaml_when_it_is_among_the_changed_files(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (seeded / "chitin.yaml").write_text("shard: maybe\n")
    put(seeded, "insights/skill/good.md", insight_text("good"))
    monkeypatch.chdir(seeded)
    runner = CliRunner()
    assert runner.invoke(cli, ["check", "insights/skill/good.md"]).exit_code == 0
    result = runner.invoke(cli, ["check", "insights/skill/good.md", "chitin.yaml"])
    assert result.exit_code == 1
    assert result.stdout.startswith("chitin.yaml: shard: must be true or false, got 'maybe'")
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert re.search(hooks[0]["files"], "chitin.yaml")
    assert re.search(hooks[0]["files"], "insights/skill/good.md")
    assert not re.search(hooks[0]["files"], "docs/chitin.yaml")


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (b"$header\n$insight\n", "unknown placeholder $insight (allowed: $header, "),
        (b"caf\xe9 $insights\n", "is not UTF-8 text (at byte 3)"),
        (
            b"$insights\n<<<<<<< ours\nBe careful.\n=======\nBe fast.\n>>>>>>> theirs\n",
            "holds git conflict markers (lines 2, 4, 6)",
        ),
    ],
)
def test_a_template_that_render_would_set_aside_is_an_error(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch, template: bytes, message: str
) -> None:
    (seeded / "templates").mkdir()
    (seeded / "templates" / "PERSONALITY.md").write_bytes(template)
    error = only(check_json(run, expect=1))
    assert (error["path"], error["field"], error["kind"]) == (
        "templates/PERSONALITY.md",
        "template",
        "invalid",
    )
    assert error["message"].startswith(message)
    monkeypatch.chdir(seeded)
    runner = CliRunner()
    one = str(next(seeded.glob("insights/*/*.md")).relative_to(seeded))
    assert runner.invoke(cli, ["check", one]).exit_code == 0  # not named: not read
    assert runner.invoke(cli, ["check", "templates/PERSONALITY.md"]).exit_code == 1
    (seeded / "templates" / "PERSONALITY.md").write_text("$count for $query:\n$insights\n")
    assert runner.invoke(cli, ["check"]).exit_code == 0


def test_a_time_in_the_future_is_a_warning(run: Run, seeded: Path) -> None:
    """A hand-edited created (or updated, last_reinforced) in the future: decay counts
    it as age 0, so the insight never decays, and check said nothing."""
    front = (
        "confidence: 0.8\ncreated: 2999-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"
        "last_reinforced: 2998-06-01T00:00:00Z\n"
    )
    put(seeded, "insights/skill/x.md", insight_text(front=front))
    report = check_json(run)
    assert report["errors"] == []
    found = {w["field"]: w for w in report["warnings"]}
    assert set(found) == {"created", "last_reinforced"}
    created = found["created"]
    assert created["kind"] == "future-time" and created["path"] == "insights/skill/x.md"
    assert created["message"].startswith("created 2999-01-01T00:00:00Z is in the future")
    assert "set it to when the insight was made" in created["fix"]
    line = run("check").stdout.splitlines()[0]
    assert line.startswith("insights/skill/x.md: warning: created: created 2999-01-01")
    soon = (datetime.now(UTC) + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    put(seeded, "insights/skill/x.md", insight_text(front=f"confidence: 0.8\ncreated: {soon}\n"))
    assert check_json(run)["warnings"] == []
