"""What the agent reads at session start: every line something it can act on, one line
per lesson, one side of a contradiction, and no filler (issue 24)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, chitin_program

LINE = re.compile(r"^- \[([a-z0-9-]+)\] ", re.MULTILINE)
README_TRIGGER = ("a test fails and editing it is quickest", "weakening the assertion")


def retrieve_json(run: Run, query: str, *args: str) -> dict[str, Any]:
    return json.loads(run("retrieve", "--query", query, "--format", "json", *args).stdout)


def seeded_with_the_readme_examples(run: Run, add: Any) -> None:
    """The quick start's store, then the README's own examples: two of them repeat a
    starter insight, in other words."""
    run("init", "--seed")
    add("skill", "Reproduce a bug before fixing it", 0.85, provenance="correction")
    add(
        "trigger",
        README_TRIGGER[1],
        0.9,
        condition=README_TRIGGER[0],
        avoid=True,
    )


# ------------------------------------------------------------------ ids


def test_every_line_carries_a_short_id_that_the_commands_accept(run: Run, add: Any) -> None:
    seeded_with_the_readme_examples(run, add)
    text = run("retrieve", "--query", "the login test fails on CI").stdout
    rendered = run("render", "--query", "debugging session").stdout
    for output in (text, rendered):
        shown = LINE.findall(output)
        assert shown and len(shown) == output.count("\n- ")  # every line, no other
        for short in shown:
            assert len(short) >= 4 and not short.endswith("-")
            found = json.loads(run("get", short, "--format", "json").stdout)
            assert found["id"].startswith(short)
    first = LINE.findall(rendered)[0]
    reinforced = run("reinforce", first).stdout
    assert reinforced.startswith("✓ Reinforced")


def test_a_claim_wrapped_by_hand_is_one_line_of_the_context(
    run: Run, add: Any, store: Path
) -> None:
    """A Markdown paragraph's lines are one sentence: a claim a person wrapped in an
    editor (or a context of two paragraphs) printed its later lines with no id, or as
    list items and headers of the context (qa38)."""
    run("init")
    made = add("principle", "Keep the backups verified", 0.9, context="Nightly jobs")
    path = store / "insights" / "principle" / f"{made['id']}.md"
    text = path.read_text()
    text = text.replace("Keep the backups verified", "Keep the backups\n- [fake] verified")
    path.write_text(text.replace("Nightly jobs", "Nightly jobs.\n\n### Weekly ones"))
    for output in (
        retrieve_run(run, "backups verified"),
        run("retrieve", "--query", "backups", "--format", "full").stdout,
        run("render", "--query", "backups verified").stdout,
    ):
        assert "Keep the backups - [fake] verified" in output
        assert "\n- [fake]" not in output and "\n### Weekly" not in output
    full = run("retrieve", "--query", "backups", "--format", "full").stdout
    assert "  Context: Nightly jobs. ### Weekly ones" in full


def test_a_short_id_grows_until_it_names_one_insight(run: Run, add: Any) -> None:
    run("init")
    one = add("principle", "Check the facts before answering", 0.9)
    two = add("principle", "Check the figures twice before sending them", 0.8)
    assert one["id"].startswith("check-the-fa") and two["id"].startswith("check-the-fi")
    shown = LINE.findall(retrieve_run(run, "check before answering"))
    assert sorted(shown) == ["check-the-fa", "check-the-fi"]


def test_a_short_id_is_not_shared_with_a_file_that_does_not_read(
    run: Run, add: Any, store: Path
) -> None:
    """`get` and the other commands count an unreadable file by its name when they
    resolve a prefix (it is ambiguous): the short id shown beside an insight must
    not start that name too, or the agent's `chitin reinforce <id>` is refused (qa50:
    a file left with git's conflict markers beside 'reproduce-flaky-…' showed [repr])."""
    run("init")
    kept = add("skill", "Reproduce flaky failures in a loop", 0.8)
    broken = add("skill", "Reproduce the bug first", 0.9)
    path = store / "insights" / "skill" / f"{broken['id']}.md"
    sides = "<<<<<<< ours\nconfidence: 0.9\n=======\nconfidence: 1\n>>>>>>> x\n"
    path.write_text(path.read_text().replace("confidence: 0.9\n", sides))
    for output in (
        retrieve_run(run, "reproduce flaky failures"),
        run("render", "--query", "reproduce flaky failures").stdout,
    ):
        [shown] = LINE.findall(output)
        assert shown == "reproduce-f"
        found = json.loads(run("get", shown, "--format", "json").stdout)
        assert found["id"] == kept["id"]
    run("reinforce", "reproduce-f")


def retrieve_run(run: Run, query: str) -> str:
    return str(run("retrieve", "--query", query).stdout)


def test_the_json_context_counts_the_ids_in_its_token_estimate(run: Run, add: Any) -> None:
    seeded_with_the_readme_examples(run, add)
    found = retrieve_json(run, "the login test fails on CI")
    assert LINE.search(found["context"])
    assert found["tokenEstimate"] == -(-len(found["context"]) // 4)


def test_the_closing_instructions_name_the_chitin_the_agent_can_run(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """On the agent's PATH, `chitin`; otherwise the chitin that rendered it, by its
    absolute path, as the hooks run it."""
    run("init", "--seed")
    program = chitin_program()

    def rendered(path: str) -> str:
        env = {**os.environ, "PATH": path}
        result = subprocess.run(
            [program, "--store", str(store), "render", "--query", "coding session"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        return result.stdout

    elsewhere = rendered("/usr/bin:/bin")
    assert f"`{program} reinforce <id>`" in elsewhere
    assert f"`{program} contribute`" in elsewhere
    on_path = rendered(f"{Path(program).parent}{os.pathsep}/usr/bin:/bin")
    assert "`chitin reinforce <id>`" in on_path and program not in on_path


def test_the_library_names_a_chitin_the_agent_can_run_too(
    run: Run, store: Path, monkeypatch: Any
) -> None:
    """qa33: a program rendering through the library (which names no command) said
    `chitin reinforce <id>` whether or not the agent's shell finds a chitin; without
    one on its PATH, the console script installed beside the library's Python."""
    from chitin import Chitin

    run("init", "--seed")
    program = chitin_program()
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    with Chitin(store=store) as chitin:
        elsewhere = chitin.render("coding session").text
    assert f"`{program} reinforce <id>`" in elsewhere
    monkeypatch.setenv("PATH", f"{Path(program).parent}{os.pathsep}/usr/bin:/bin")
    with Chitin(store=store) as chitin:
        on_path = chitin.render("coding session").text
    assert "`chitin reinforce <id>`" in on_path and program not in on_path


def test_a_hook_bound_to_a_store_tells_the_agent_that_store(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """Installed with --store, the SessionStart hook renders that store's insights; the
    agent's own shell, in the project, would find another store (the default one), so
    the closing instructions must say which store the ids belong to. Standing in the
    store (or with $CHITIN_STORE naming it), the commands find it by themselves."""
    run("init", "--seed")
    project = tmp_path / "project"
    project.mkdir()
    program = chitin_program()
    subprocess.run(
        [program, "--store", str(store), "hooks", "install", "claude-code", "--dir", str(project)],
        capture_output=True,
        check=True,
    )
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    start = {"hook_event_name": "SessionStart", "session_id": "s", "source": "startup"}

    def context(cwd: Path, env: dict[str, str]) -> str:
        event = json.dumps({**start, "cwd": str(cwd)})
        done = subprocess.run(
            ["sh", "-c", command], cwd=cwd, input=event, capture_output=True, text=True, env=env
        )
        return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])

    told = f"add `--store {store}` to each command"
    in_project = context(project, dict(os.environ))
    assert told in in_project and "reinforce <id>`" in in_project
    assert told not in context(store, dict(os.environ))
    assert told not in context(project, {**os.environ, "CHITIN_STORE": str(store)})
    # the personality's diff compares the same instructions on both sides
    run("contribute", "--type", "skill", "--claim", "Name the store", "--confidence", "0.7")
    changed = run("diff", "HEAD~1", "--render").stdout
    assert "--store" not in changed


def test_a_file_rendered_for_a_project_names_the_store_the_project_would_miss(
    run: Run, store: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """`render --output` writes where the agent reads it, and runs chitin from: the
    closing instructions are for that folder, not the one render ran in."""
    run("init", "--seed")
    project = tmp_path / "project"
    project.mkdir()
    told = f"add `--store {store}` to each command"
    monkeypatch.chdir(store)  # a person renders from the store, for a project
    run("render", "--query", "coding", "--output", str(project / "PERSONALITY.md"))
    assert told in (project / "PERSONALITY.md").read_text()
    monkeypatch.chdir(project)  # and from a project, for the store's own file
    run("render", "--query", "coding", "--output", str(store / "PERSONALITY.md"))
    assert "--store" not in (store / "PERSONALITY.md").read_text()


# ------------------------------------------------------------------ duplicates


def test_the_readme_examples_do_not_repeat_the_starter_insights(run: Run, add: Any) -> None:
    seeded_with_the_readme_examples(run, add)
    found = retrieve_json(run, "the login test fails on CI", "--explain")
    triggers = [i for i in found["insights"] if i["type"] == "trigger" and "assert" in i["claim"]]
    assert len(triggers) == 1
    assert len(triggers[0]["alsoCovers"]) == 1
    assert found["context"].count("assertion") == 1
    debugging = run("render", "--query", "debugging session").stdout
    assert debugging.lower().count("reproduce a bug") == 1
    human = run("retrieve", "--query", "the login test fails on CI", "--explain").stdout
    assert "also covers" in human and "chitin merge" in human


def test_the_strongest_of_a_repeated_lesson_is_the_one_shown(run: Run, add: Any) -> None:
    run("init")
    weak = add("skill", "Pin the versions of dependencies", 0.5)
    strong = add("skill", "pin the versions of dependencies.", 0.95, force=True)
    found = retrieve_json(run, "pin dependency versions")
    assert [i["id"] for i in found["insights"]] == [strong["id"]]
    assert found["insights"][0]["alsoCovers"] == [weak["id"]]


def test_explain_names_one_merge_that_folds_every_copy(run: Run, add: Any) -> None:
    """Three copies of a lesson under the shown one: the command --explain offers folds
    all three (merge takes several sources), not the first alone."""
    run("init")
    copies = [add("skill", claim, 0.5, force=True)["id"] for claim in COPIES]
    strong = add("skill", "Pin the versions of dependencies!", 0.95, force=True)["id"]
    [shown] = retrieve_json(run, "pin dependency versions")["insights"]
    assert shown["id"] == strong and sorted(shown["alsoCovers"]) == sorted(copies)
    human = run("retrieve", "--query", "pin dependency versions", "--explain").stdout
    assert f"(chitin merge {' '.join(shown['alsoCovers'])} {strong} folds them)" in human


COPIES = (
    "Pin the versions of dependencies",
    "pin the versions of dependencies.",
    "PIN the versions of dependencies",
)


def test_the_same_claim_kept_under_two_types_is_one_line(run: Run, add: Any) -> None:
    """The door refuses the same claim only in one type: the same sentence kept as a
    personality and as a skill is still one lesson, said twice to the agent."""
    run("init")
    kept = add("personality", "Stay curious about surprising results", 0.9)
    again = add("skill", "stay curious about surprising results.", 0.6)
    found = retrieve_json(run, "surprising results in the test output")
    assert [i["id"] for i in found["insights"]] == [kept["id"]]
    assert found["insights"][0]["alsoCovers"] == [again["id"]]
    assert found["context"].lower().count("stay curious") == 1


def test_alike_insights_that_say_different_things_both_stay(run: Run, add: Any) -> None:
    run("init")
    add("skill", "Squash commits on feature branches before merging", 0.8)
    add("skill", "Write commit messages in the imperative mood", 0.8)
    add("skill", "Run the whole test suite before saying a task is done", 0.8)
    add("skill", "Mark a flaky test and file an issue for it", 0.8)
    found = retrieve_json(run, "committing and testing")
    assert len(found["insights"]) == 4
    assert not any("alsoCovers" in i for i in found["insights"])


# ------------------------------------------------------------------ filler


def test_filler_is_principle_personality_then_behavioral_and_never_a_stray_skill(
    run: Run, add: Any
) -> None:
    seeded_with_the_readme_examples(run, add)
    found = retrieve_json(run, "the login test fails on CI", "--explain")
    fillers = [i for i in found["insights"] if not i["matched"]]
    assert fillers and {i["type"] for i in fillers} <= {"principle", "personality", "behavioral"}
    order = {"principle": 0, "personality": 1, "behavioral": 2}
    assert [order[i["type"]] for i in fillers] == sorted(order[i["type"]] for i in fillers)
    assert all(i["score"] > 0 for i in found["insights"] if i["matched"])
    assert all(i["score"] == 0 for i in fillers)
    assert len(found["insights"]) <= 15


def test_a_weak_match_never_reads_as_a_relevance_of_0(run: Run, add: Any) -> None:
    """A matched insight's score prints in significant digits, never 0; so does the
    relevance it is made of, in JSON and in the text of --explain, else the JSON says
    `"matched": true` beside `"relevance": 0.0`."""
    seeded_with_the_readme_examples(run, add)
    query = "the login test fails on CI"
    found = retrieve_json(run, query, "--explain")
    weak = [i for i in found["insights"] if i["matched"] and i["score"] < 1e-6]
    assert weak, "the query matches some insights only weakly"
    assert all(i["factors"]["relevance"] > 0 for i in found["insights"] if i["matched"])
    explained = run("retrieve", "--query", query, "--explain").stdout
    assert "relevance 0.000" not in explained


def test_max_results_is_an_upper_bound(run: Run, add: Any) -> None:
    seeded_with_the_readme_examples(run, add)
    found = retrieve_json(run, "deploy the kubernetes cluster", "--max-results", "3")
    assert 1 <= len(found["insights"]) <= 3


def test_a_hosts_session_start_query_gets_a_useful_personality(run: Run) -> None:
    """Claude Code's and OpenClaw's queries name a project, a channel or an agent: they
    match little, and the personality is what fills the rest."""
    run("init", "--seed")
    for query in ("coding session in the project billing-service", "chat with Ana on Telegram"):
        text = run("render", "--query", query).stdout
        assert "### Principle" in text and "### Personality" in text
        assert len(LINE.findall(text)) >= 5


# ------------------------------------------------------------------ contradictions


def test_only_the_stronger_side_of_a_known_contradiction_reaches_the_agent(
    run: Run, add: Any
) -> None:
    run("init", "--seed")
    verbose = add("personality", "Be verbose and explain every step", 0.5, provenance="social")
    found = retrieve_json(run, "explain the change to the user", "--explain")
    shown = {i["id"]: i for i in found["insights"]}
    assert verbose["id"] not in shown
    plainly = next(i for i in shown.values() if i["claim"].startswith("Speak plainly"))
    assert plainly["outweighs"] == [verbose["id"]]
    assert "Be verbose" not in found["context"]
    human = run("retrieve", "--query", "explain the change to the user", "--explain").stdout
    assert f"left out {verbose['id']}: contradicts this one, which is stronger" in human


@pytest.mark.parametrize("kind", ["behavioral", "principle"])
def test_a_contradiction_across_the_how_to_be_types_shows_one_side(
    run: Run, add: Any, kind: str
) -> None:
    """The issue's verbose insight kept as another type than the starter's personality:
    contribute warns of the conflict across types, so the context must not show both."""
    run("init", "--seed")
    verbose = add(kind, "Be verbose and explain every step", 0.5, provenance="social")
    found = retrieve_json(run, "explain the change to the user", "--explain")
    assert verbose["id"] not in {i["id"] for i in found["insights"]}
    plainly = next(i for i in found["insights"] if i["claim"].startswith("Speak plainly"))
    assert plainly["outweighs"] == [verbose["id"]]
    assert "Be verbose" not in run("render", "--query", "explain the change to the user").stdout


def test_a_persons_wish_is_not_folded_into_a_general_way_of_being(run: Run, add: Any) -> None:
    """A relational insight is one person's exception, not a contradiction: both reach
    the agent, the general rule and what this person wants."""
    run("init", "--seed")
    wish = add("relational", "Alice wants every step explained in detail", 0.9)
    found = retrieve_json(run, "explain the change to Alice")
    assert wish["id"] in {i["id"] for i in found["insights"]}
    assert any(i["claim"].startswith("Speak plainly") for i in found["insights"])


def test_an_empty_query_shows_one_side_of_a_contradiction_too(run: Run, add: Any) -> None:
    """`render` without --query (and retrieve of "") is all filler: the strongest
    personality insights, where the issue's pair meet. No query is embedded then, but
    the stored vectors still judge the pair (qa38: both sides were shown)."""
    run("init", "--seed")
    verbose = add("personality", "Be verbose and explain every step", 0.5, provenance="social")
    found = retrieve_json(run, "", "--explain")
    assert verbose["id"] not in {i["id"] for i in found["insights"]}
    plainly = next(i for i in found["insights"] if i["claim"].startswith("Speak plainly"))
    assert plainly["outweighs"] == [verbose["id"]] and found["degraded"] is None
    rendered = run("render").stdout
    assert "Speak plainly" in rendered and "Be verbose" not in rendered


def test_a_trigger_and_its_opposite_for_one_situation_show_the_stronger(run: Run, add: Any) -> None:
    run("init")
    condition = "the deploy fails on a Friday evening"
    add("trigger", "roll back at once", 0.9, condition=condition)
    weaker = add("trigger", "roll back at once", 0.5, condition=condition, avoid=True)
    found = retrieve_json(run, "the deploy failed on friday evening")
    assert len(found["insights"]) == 1 and found["insights"][0]["outweighs"] == [weaker["id"]]


def test_a_restatement_of_the_stronger_side_is_covered_not_outweighed(run: Run, add: Any) -> None:
    """The line began with the AVOID copy (ranked first), which outweighed the DO copy;
    the stronger DO insight then took the line, and was handed the AVOID copy's
    outweighs: --explain said the DO copy "contradicts this one", a restatement."""
    run("init")
    avoid = add("trigger", "roll back first", 0.71, condition="a deploy fails", avoid=True)
    same = add("trigger", "roll back first", 0.7, condition="a deploy fails", force=True)
    strong = add(
        "trigger", "roll back before anything else", 0.8, condition="a deployment fails", force=True
    )
    [shown] = retrieve_json(run, "the deploy failed", "--explain")["insights"]
    assert shown["id"] == strong["id"]
    assert (shown["alsoCovers"], shown["outweighs"]) == ([same["id"]], [avoid["id"]])
    said = run("retrieve", "--query", "the deploy failed", "--explain").stdout
    assert f"also covers {same['id']}: the same lesson" in said
    assert f"left out {avoid['id']}: contradicts this one" in said


def test_triggers_of_one_situation_with_other_responses_both_reach_the_agent(
    run: Run, add: Any
) -> None:
    """qa55: the restatement rule read a trigger's topic words, which are its situation's
    ("deploy", "fail"; "roll back first" holds only poles), so a second response to one
    situation was folded into the first as the same lesson and never shown, though
    contribute, check and dedupe all keep the two apart."""
    run("init")
    condition = "a deploy fails"
    first = add("trigger", "roll back first", 0.8, condition=condition)
    second = add("trigger", "page the on-call engineer", 0.7, condition=condition)
    again = add("trigger", "roll back before anything else", 0.6, condition="a deployment fails")
    run("embed")
    found = retrieve_json(run, "the deploy failed")
    shown = {i["id"]: i.get("alsoCovers", []) for i in found["insights"]}
    assert shown == {first["id"]: [again["id"]], second["id"]: []}
    assert "page the on-call engineer" in run("render", "--query", "the deploy failed").stdout


def test_other_answers_to_one_long_situation_both_reach_the_agent(run: Run, add: Any) -> None:
    """qa55: two answers to one long situation embed as near as a reworded trigger
    (0.8: the shared condition outweighs the short responses), and retrieval, which
    has no cosine of the responses alone, folded the second into the first; the door
    and check keep them apart."""
    run("init")
    condition = "the production deploy of the billing service fails in the Friday release"
    first = add("trigger", "roll back first", 0.8, condition=condition)
    second = add("trigger", "page the on-call engineer", 0.7, condition=condition)
    run("embed")
    found = retrieve_json(run, "the billing deploy failed on friday")
    assert sorted(i["id"] for i in found["insights"]) == sorted([first["id"], second["id"]])
    assert not any("alsoCovers" in i for i in found["insights"])
