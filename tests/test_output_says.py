"""Issue 28, item 6: output says what changed, and numbers are rounded as 1.4.5 rounds
them (toFixed), in text and JSON alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import Run, git

from chitin import Chitin
from chitin.model.insight import js_number
from chitin.render.text import confidence, confidence_change


def test_init_on_a_store_says_it_is_one_already(run: Run, store: Path) -> None:
    assert run("init").stdout == f"✓ Store initialized at {store}\n"
    assert run("init").stdout == f"✓ {store} is already a store; nothing to do\n"
    (store / ".gitattributes").unlink()  # what an older chitin did not write
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "drop it")
    said = run("init").stdout
    assert said.startswith(f"✓ {store} was already a store; added what it lacked (commit ")


def test_init_seed_on_a_store_does_not_say_nothing_to_do_then_seed(run: Run, store: Path) -> None:
    """`init --seed` on a store said "is already a store; nothing to do", then
    "✓ Seeded 14 starter insight(s)": the first line denied what the second said."""
    run("init")
    said = run("init", "--seed").stdout.splitlines()
    assert said[0] == f"✓ {store} is already a store"
    assert said[1].startswith("✓ Seeded ") and said[1].endswith(" starter insight(s)")
    again = run("init", "--seed").stdout.splitlines()
    assert again == [f"✓ {store} is already a store; nothing to do",
                     "  Starter insights already present."]  # fmt: skip


def test_init_in_a_plain_clone_says_it_set_the_merge_driver(
    run: Run, run_json: Any, store: Path, tmp_path: Path
) -> None:
    """fix121: `check` asks for `chitin init` in a plain clone (git config is not
    cloned); init set the merge driver there and said "nothing to do"."""
    run("init")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(store), str(clone))
    said = run("--store", str(clone), "init").stdout
    assert said == (
        f"✓ {clone} is already a store; set up this clone: git's merge driver for insights\n"
    )
    assert "merge.chitin.driver" in git(clone, "config", "--local", "--list")
    assert run("--store", str(clone), "init").stdout.endswith("; nothing to do\n")
    git(clone, "config", "--local", "--unset", "merge.chitin.driver")
    shown = json.loads(run("--store", str(clone), "init", "--format", "json").stdout)
    assert shown["mergeDriverSet"] is True and shown["created"] is False
    assert run_json("init")["mergeDriverSet"] is False


def test_init_says_it_pointed_the_merge_driver_at_another_chitin(store: Path) -> None:
    with Chitin(store, command=("/opt/one/chitin",)) as first:
        commit, seeded = first.init()  # it unpacks as (commit, seeded), as it always has
        assert commit is not None and seeded == []
        assert first.init().merge_driver_set is False
    with Chitin(store, command=("/opt/two/chitin",)) as second:
        again = second.init()
    assert again.merge_driver_set is True and again == (None, [])
    assert "/opt/two/chitin" in git(store, "config", "--local", "merge.chitin.driver")


def test_init_in_another_projects_repository_says_the_store_shares_its_history(
    run: Run, store: Path
) -> None:
    """qa34: `init` on a project's repository commits the store's skeleton into that
    project's history; it is allowed (a team may keep it there), and said."""
    store.mkdir(parents=True)
    git(store, "init", "-q")
    (store / "main.py").write_text("print('hi')\n")
    git(store, "add", "main.py")
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "project")
    assert run("init").stdout == (
        f"✓ Store initialized at {store}\n"
        f"  note: {store} was already a git repository; the store now shares its history "
        "(a store of its own needs a folder of its own)\n"
    )
    assert run("init").stdout == f"✓ {store} is already a store; nothing to do\n"


def test_reinforce_shows_old_and_new_confidence(run: Run, add: Any, run_json: Any) -> None:
    made = add("skill", "Reproduce the bug first", 0.95)
    assert "  Confidence: 0.95 → 0.953\n" in run("reinforce", made["id"]).stdout  # 0.9525
    assert "  Confidence: 0.953 → 0.955\n" in run("reinforce", made["id"]).stdout  # 0.954875
    shown = run("get", made["id"]).stdout
    assert "  Confidence: 0.95 | Reinforced: 2x\n" in shown
    assert "confidence: 0.95 |" in run("list").stdout
    assert run_json("get", made["id"])["confidence"] == 0.954875  # the data stays exact


def test_update_and_diff_show_a_changed_confidence_as_reinforce_does(run: Run, add: Any) -> None:
    """The line that says what an update changed, and chitin diff's, round a confidence
    as reinforce's old → new does (they printed the stored 0.954875)."""
    made = add("skill", "Reproduce the bug first", 0.95)
    run("reinforce", made["id"])
    run("reinforce", made["id"])  # 0.954875
    updated = run("update", made["id"], "--confidence", "0.9").stdout
    assert "  confidence: 0.955 → 0.9\n" in updated
    assert "0.954875" not in run("diff", "HEAD~1").stdout + run("diff", "HEAD~2").stdout
    assert "confidence: 0.953 → 0.955, +1 reinforcement" in run("diff", "HEAD~2..HEAD~1").stdout


def test_the_rounding_is_javascripts_tofixed() -> None:
    assert confidence(0.914262) == "0.91"
    assert confidence(0.8) == "0.8" and confidence(1.0) == "1"
    assert confidence(0.125) == "0.13"  # an exact binary tie rounds up, as toFixed does
    assert confidence_change(1.0, 1.0) == "1 → 1"
    assert confidence_change(0.9999, 0.99990005) == "0.9999 → 0.99990005"  # below 1e-6
    assert confidence_change(0.99991, 0.9999145) == "0.99991 → 0.999915"


def test_a_confidence_short_of_one_is_never_shown_as_one(run: Run, add: Any) -> None:
    """fix100: 0.9994 → 0.9995 printed "0.999 → 1", as if the change reached the cap;
    each value is rounded as the other, and neither to a bound it is not."""
    assert confidence_change(0.9994, 0.9995) == "0.9994 → 0.9995"
    assert confidence_change(0.9999, 1.0) == "0.9999 → 1"  # 1 is shown only for 1
    assert confidence_change(0.99995, 0.99995) == "0.99995 → 0.99995"
    assert confidence_change(0.0004, 0.0) == "0.0004 → 0"
    made = add("skill", "Reproduce the bug first", 0.9994)
    assert (
        "  confidence: 0.9994 → 0.9995\n"
        in run("update", made["id"], "--confidence", "0.9995").stdout
    )
    assert "confidence: 0.9994 → 0.9995" in run("diff", "HEAD~1").stdout
    assert '[update] confidence: "0.9994" → "0.9995"' in run("history", made["id"]).stdout
    assert 'confidence: "0.9994" → "0.9995"' in run("changelog").stdout


def test_json_numbers_are_rounded_as_their_text(run: Run, add: Any, run_json: Any) -> None:
    add("skill", "Write the failing test before the fix", 0.8)
    add("skill", "Keep commits small and single purpose", 0.675)
    assert "  Average confidence: 0.74\n" in run("stats").stdout  # 0.7375, toFixed(2)
    assert run_json("stats")["averageConfidence"] == 0.74
    found = run_json("similar", "write the failing test first", "--threshold", "0")
    shown = run("similar", "write the failing test first", "--threshold", "0").stdout
    for item in found:
        assert f"[{round(item['similarity'] * 100)}%]" in shown
        assert item["similarity"] == round(item["similarity"], 2)


def test_an_update_that_makes_two_insights_the_same_says_so(run: Run, add: Any) -> None:
    """contribute refuses the same insight twice; an update that makes one the same as
    another is kept (1.4.5's update checks nothing), and says how to fold them."""
    run("init")
    first = add("skill", "Pin the versions of dependencies", 0.8)["id"]
    second = add("skill", "Lock the dependency versions", 0.7)["id"]
    said = run("update", second, "--claim", "pin the versions of dependencies.").stdout
    assert f"  note: now the same insight as {first}: fold one into the other: " in said
    assert f"chitin merge {second} {first}" in said
    again = run("update", second, "--confidence", "0.75").stdout  # the same already: no news
    assert "note:" not in again


def test_an_update_that_makes_two_insights_the_same_says_so_in_json(
    run: Run, add: Any, run_json: Any
) -> None:
    """The JSON lacked the text's note: it names the other in ``duplicates``, in
    contribute's shape, and only when there is one."""
    run("init")
    first = add("skill", "Pin the versions of dependencies", 0.8)["id"]
    second = add("skill", "Lock the dependency versions", 0.7)["id"]
    made = run_json("update", second, "--claim", "pin the versions of dependencies.")
    assert made["duplicates"] == [
        {
            "id": first,
            "type": "skill",
            "claim": "Pin the versions of dependencies",
            "similarity": 1.0,
        }
    ]
    assert "duplicates" not in run_json("update", second, "--confidence", "0.75")


def test_numbers_are_printed_as_javascript_prints_them() -> None:
    """Number.prototype.toString: digits up to 1e21, exponents beyond; down to 1e-6
    in decimals, exponents below (1.4.5 prints every number so)."""
    assert js_number(1e308) == "1e+308" and js_number(-1e308) == "-1e+308"
    assert js_number(1e21) == "1e+21" and js_number(1e20) == "100000000000000000000"
    assert js_number(10**30) == "1e+30" and js_number(10**400) == "Infinity"
    assert js_number(0.00001) == "0.00001" and js_number(0.000001) == "0.000001"
    assert js_number(1e-7) == "1e-7" and js_number(1.5e-7) == "1.5e-7"
    assert js_number(2.5e25) == "2.5e+25" and js_number(-0.0) == "0"
    assert js_number(0.905) == "0.905" and js_number(1.0) == "1" and js_number(12) == "12"
    assert js_number(0.9097500000000001) == "0.9097500000000001"


def test_a_huge_number_is_refused_in_one_short_line(run: Run, tmp_path: Path) -> None:
    items = tmp_path / "items.json"
    items.write_text('[{"type": "skill", "claim": "Pin versions", "confidence": 1e308}]')
    refused = run("import", str(items), expect=1).stderr
    assert "got 1e+308;" in refused and len(refused) < 200
    assert run("history", "x", "--limit", "1e308", expect=2).stderr.count("\n") == 1


def test_nan_and_infinity_are_named_as_json_writes_them(run: Run, tmp_path: Path) -> None:
    for written, shown in (
        ("NaN", "got NaN"),
        ("Infinity", "got Infinity"),
        ("-1e400", "got -Infinity"),
    ):
        items = tmp_path / "items.json"
        items.write_text(f'[{{"type": "skill", "claim": "Pin versions", "confidence": {written}}}]')
        assert f"{shown};" in run("import", str(items), expect=1).stderr


def test_json_prints_a_whole_number_as_javascript_does(run: Run, add: Any) -> None:
    """1.4.5's JSON (JSON.stringify) writes 1 and 0 where Python's writes 1.0 and 0.0:
    `get --format json` printed `"confidence": 1.0`, quality's components
    `"maturity": 0.0` (qa56)."""
    made = add("skill", "Write the failing test before the fix", 1.0)["id"]
    assert '\n  "confidence": 1,\n' in run("get", made, "--format", "json").stdout
    scored = run("quality:score", made, "--format", "json").stdout
    assert '"maturity": 0,' in scored and ".0," not in scored and ".0\n" not in scored
    assert (
        '"similarity": 0\n'
        in run("similar", "zebra", "--threshold", "0", "--format", "json").stdout
    )
    from chitin.cli.output import json_text
    from chitin.server.tools import answer

    assert answer({"similarity": 0.0}, [])["content"][0]["text"] == '{\n  "similarity": 0\n}'

    assert json_text({"a": [1e21, 1e20, -0.0, 0.5, 2.0]}) == (
        '{\n  "a": [\n    1e+21,\n    100000000000000000000,\n    0,\n    0.5,\n    2\n  ]\n}'
    )


def test_json_prints_a_small_number_as_javascript_does() -> None:
    """Python writes a float under 1e-4 with an exponent of two digits (``5e-05``,
    ``9.547453703703702e-07``), JSON.stringify in plain digits down to 1e-6 and with
    its own exponent below (``0.00005``, ``9.547453703703702e-7``): quality's
    `daysSinceLastRecall` right after a retrieve, a weak match's score in retrieve."""
    from chitin.cli.output import json_text
    from chitin.server.tools import answer

    data = {"days": 9.547453703703702e-07, "score": 5e-05, "tiny": [-1.5e-7], "ok": 0.25}
    expected = (
        '{\n  "days": 9.547453703703702e-7,\n  "score": 0.00005,\n  "tiny": [\n'
        '    -1.5e-7\n  ],\n  "ok": 0.25\n}'
    )
    assert json_text(data) == expected
    assert answer(data, [])["content"][0]["text"] == expected
    assert json_text({"claim": "5e-05", "n": 5e-05}) == '{\n  "claim": "5e-05",\n  "n": 0.00005\n}'


def test_merge_of_insights_without_tags_says_none(run: Run, add: Any) -> None:
    """qa60: `merge` printed `  tags: ` and nothing after it where the merged insight has
    no tag; chitin 1.4.5 printed `(none)` there, as `contribute` does."""
    target = add("skill", "Keep the target claim", 0.8)
    source = add("skill", "Fold this other claim in", 0.7)
    out = run("merge", source["id"], target["id"]).stdout
    assert out.endswith("  tags: (none)\n"), out


def test_merge_of_a_trigger_into_another_type_says_what_it_dropped(
    run: Run, add: Any, run_json: Any
) -> None:
    """fix81: merging a trigger into a principle dropped its condition and its avoid
    without a word; `update --type` says so in a note, and merge now says the same."""
    target = add("principle", "Tests describe the truth of the code", 0.7)
    source = add("trigger", "weakening the assertion", 0.9, condition="a test fails", avoid=True)
    out = run("merge", source["id"], target["id"]).stdout
    assert out.endswith(
        "\n  note: condition and avoid dropped: a principle insight has neither\n"
    ), out
    other = add("skill", "Keep the skill claim", 0.8)
    plain = add("skill", "Fold this skill in", 0.7)
    assert "note:" not in run("merge", plain["id"], other["id"]).stdout
    kept = add("trigger", "reverting the fix", 0.8, condition="a test is flaky", avoid=True)
    merged = run_json("merge", kept["id"], other["id"])
    assert merged["type"] == "skill" and "condition" not in merged  # the shape update gives


def test_merge_and_history_round_a_confidence_as_get_and_reinforce_do(
    run: Run, add: Any, run_json: Any
) -> None:
    """fix81: merge and history printed the stored confidence (0.954875) where get and
    list print 0.95 and reinforce's old → new 0.953 → 0.955; the JSON stays exact."""
    made = add("skill", "Reproduce the bug first", 0.95)
    run("reinforce", made["id"])
    run("reinforce", made["id"])  # 0.954875
    other = add("skill", "Run the failing test alone", 0.5)
    merged = run("merge", other["id"], made["id"]).stdout
    assert "  confidence: 0.95 | reinforced: 2×\n" in merged, merged
    shown = run("history", made["id"]).stdout
    assert "  Current: confidence 0.95 | 2× reinforced\n" in shown, shown
    assert "[reinforce] confidence: 0.953 → 0.955 (reinforce:2)" in shown, shown
    run("update", made["id"], "--confidence", "0.9")
    assert '[update] confidence: "0.955" → "0.9"' in run("history", made["id"]).stdout
    # as 1.4.5 prints them: an update's values quoted, a reinforcement's numbers bare
    changes = run("changelog").stdout
    assert f'[update] {made["id"]} confidence: "0.955" → "0.9"' in changes, changes
    assert f"[reinforce] {made['id']} 0.953 → 0.955 (reinforce:2)" in changes, changes
    assert "0.954875" not in changes
    assert run_json("history", made["id"])["history"][2]["newValue"] == "0.954875"


def test_json_of_merge_and_update_type_names_the_fields_dropped(add: Any, run_json: Any) -> None:
    """fix90: merging a trigger into another type, or `update --type` away from trigger,
    drops condition and avoid and says so in text; the JSON said nothing of it."""
    target = add("principle", "Tests describe the truth of the code", 0.7)
    source = add("trigger", "weakening the assertion", 0.9, condition="a test fails", avoid=True)
    assert run_json("merge", source["id"], target["id"])["dropped"] == ["condition", "avoid"]
    kept = add("trigger", "reverting the fix", 0.8, condition="a test is flaky", avoid=True)
    updated = run_json("update", kept["id"], "--type", "skill")
    assert updated["dropped"] == ["condition", "avoid"] and "condition" not in updated
    plain = add("skill", "Fold this skill in", 0.7)
    other = add("skill", "Keep the skill claim", 0.8)
    assert "dropped" not in run_json("merge", plain["id"], other["id"])
    assert "dropped" not in run_json("update", other["id"], "--type", "principle")


def test_history_and_changelog_shorten_a_long_claim_as_diff_does(
    run: Run, add: Any, run_json: Any
) -> None:
    """fix101: a 57,000-character claim made a 57,000-character line of `history`'s
    header and create entry, and of `changelog`'s; text shows it shortened, the JSON whole.
    An ordinary claim (a sentence) is shown whole."""
    claim = "Check the " + "word " * 11_400 + "end."
    made = add("skill", claim, 0.8)
    longer = claim + " And the tail."
    run("update", made["id"], "--claim", longer)
    for said in (run("history", made["id"]).stdout, run("changelog").stdout):
        assert max(len(line) for line in said.splitlines()) < 400, said[:600]
        assert '"Check the word word' in said and "…" in said
        assert 'word end." → "…word word word word end. And the tail."' in said  # they part
    whole = run_json("history", made["id"])["history"]
    assert whole[0]["newValue"] == claim and whole[1]["newValue"] == longer
    assert run_json("changelog")[-1]["newValue"] == claim
    sentence = "Reproduce the bug with a failing test before touching the code, then fix it."
    plain = add("skill", sentence * 2, 0.8)
    assert f'[create] "{sentence * 2}"' in run("history", plain["id"]).stdout


def test_history_and_changelog_shorten_a_long_reinforcement_source(
    run: Run, add: Any, run_json: Any
) -> None:
    """A reinforcement's source may hold 1,000 characters of evidence; the line of
    `history` and `changelog` showed it whole, after the change. Text shows it
    shortened; the JSON keeps it whole."""
    made = add("skill", "Reproduce the bug before fixing it.", 0.8)
    source = "Seen again in " + "the payment service's retry path, " * 28 + "today."
    run("reinforce", made["id"], "--source", source)
    for said in (run("history", made["id"]).stdout, run("changelog").stdout):
        [line] = [line for line in said.splitlines() if "[reinforce]" in line]
        assert len(line) < 320 and "(reinforce:1|Seen again in the payment" in line, line
        assert "…)" in line
    entry = run_json("history", made["id"])["history"][-1]
    assert source in entry["source"]
