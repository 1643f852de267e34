"""The reflection queue: `chitin reflect` shows, queues and clears session markers."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, git

from chitin.model import reflection
from chitin.model.reflection import Marker
from chitin.store.reflections import NOTES_FOLDER

ISO_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
ISO_SECONDS = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"

RunJson = Callable[..., Any]


@pytest.fixture
def seeded(run: Run) -> None:
    run("init", "--seed")


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    """chitin 1.4.5's queue, where the isolated home puts it."""
    return tmp_path / "home" / ".config" / "chitin" / "pending-reflection.json"


def queue_file(store: Path) -> Path:
    return store / ".chitin" / "reflections.json"


def queue(run: Run, key: str, reason: str = "new", expect: int = 0) -> Any:
    return run("reflect", "--queue", "--session-key", key, "--reason", reason, expect=expect)


def write_markers(path: Path, markers: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(markers, indent=2) + "\n")


# ---------------------------------------------------------------- showing


def test_an_empty_queue_without_a_store_creates_nothing(run: Run, store: Path) -> None:
    shown = run("reflect")
    assert shown.stdout == (
        "No pending reflections.\n\nCurrent state: 0 insight(s), avg confidence 0.00\n"
    )
    assert json.loads(run("reflect", "--format", "json").stdout)["pending"] == []
    assert not store.exists()


@pytest.mark.usefixtures("seeded")
def test_queued_markers_are_shown_oldest_first_with_iso_utc_times(run: Run) -> None:
    queue(run, "agent:main:telegram:1", "new")
    queue(run, "agent:main:main", "reset")
    lines = run("reflect").stdout.splitlines()
    assert lines[:2] == ["2 pending reflection(s):", ""]
    assert re.fullmatch(rf"  • agent:main:telegram:1 \(new\) — {ISO_SECONDS}", lines[2])
    assert re.fullmatch(rf"  • agent:main:main \(reset\) — {ISO_SECONDS}", lines[3])
    assert lines[4] == ""
    assert re.fullmatch(r"Current state: 14 insight\(s\), avg confidence 0\.\d\d", lines[5])
    assert len(lines) == 6


@pytest.mark.usefixtures("seeded")
def test_json_shows_the_markers_and_the_same_stats_as_the_stats_command(
    run: Run, run_json: RunJson
) -> None:
    queue(run, "k1", "compact")
    shown = run_json("reflect")
    assert list(shown) == ["pending", "stats", "digests"]  # digests: issue 26
    [marker] = shown["pending"]
    assert list(marker) == ["sessionKey", "timestamp", "reason"]
    assert marker["sessionKey"] == "k1" and marker["reason"] == "compact"
    assert ISO_MS.match(marker["timestamp"])
    assert shown["stats"] == run_json("stats")


@pytest.mark.usefixtures("seeded")
def test_queueing_confirms_in_human_and_json(run: Run, run_json: RunJson) -> None:
    said = queue(run, "agent:main:main", "end").stdout
    assert re.fullmatch(
        rf"✓ Queued a reflection on agent:main:main \(end\) — {ISO_SECONDS}\n", said
    )
    made = run_json("reflect", "--queue", "--session-key", "k2", "--reason", "reset")
    assert made["queued"]["sessionKey"] == "k2" and made["queued"]["reason"] == "reset"
    assert [m["sessionKey"] for m in run_json("reflect")["pending"]] == ["agent:main:main", "k2"]


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("reason", ["new", "reset", "compact", "end"])
def test_every_reason_is_accepted(run: Run, run_json: RunJson, reason: str) -> None:
    queue(run, "k", reason)
    assert run_json("reflect")["pending"][0]["reason"] == reason


@pytest.mark.usefixtures("seeded")
def test_the_queue_is_a_pretty_json_file_in_the_ignored_chitin_folder(
    run: Run, store: Path
) -> None:
    status = git(store, "status", "--porcelain")
    queue(run, "k1")
    text = queue_file(store).read_text()
    assert text.startswith('[\n  {\n    "sessionKey": "k1",\n') and text.endswith("]\n")
    assert git(store, "status", "--porcelain") == status  # not a change to the store


@pytest.mark.usefixtures("seeded")
def test_the_queue_keeps_the_newest_ten(run: Run, run_json: RunJson, store: Path) -> None:
    for n in range(12):
        queue(run, f"k{n}")
    kept = [m["sessionKey"] for m in json.loads(queue_file(store).read_text())]
    assert kept == [f"k{n}" for n in range(2, 12)]
    assert [m["sessionKey"] for m in run_json("reflect")["pending"]] == kept


# ---------------------------------------------------------------- clearing


@pytest.mark.usefixtures("seeded")
def test_clear_shows_then_empties_the_queue(run: Run, store: Path) -> None:
    queue(run, "k1")
    lines = run("reflect", "--clear").stdout.splitlines()
    assert lines[0] == "1 pending reflection(s):"
    assert lines[-2:] == ["", "✓ Cleared pending reflections."]
    assert json.loads(queue_file(store).read_text()) == []
    assert run("reflect").stdout.startswith("No pending reflections.\n")


@pytest.mark.usefixtures("seeded")
def test_clear_in_json_mode_says_how_many(run: Run, run_json: RunJson) -> None:
    queue(run, "k1")
    queue(run, "k2")
    cleared = run_json("reflect", "--clear")
    assert [m["sessionKey"] for m in cleared["pending"]] == ["k1", "k2"]
    assert cleared["cleared"] == 2
    assert run_json("reflect", "--clear")["cleared"] == 0


@pytest.mark.usefixtures("seeded")
def test_clearing_nothing_writes_nothing(run: Run, store: Path, legacy: Path) -> None:
    write_markers(legacy, [])
    before = legacy.stat().st_mtime_ns
    out = run("reflect", "--clear").stdout
    assert "Cleared" not in out
    assert legacy.stat().st_mtime_ns == before and legacy.read_text() == "[]\n"
    assert not queue_file(store).exists()


# ---------------------------------------------------------------- the legacy file


@pytest.mark.usefixtures("seeded")
def test_the_legacy_file_is_read_with_ours_oldest_first(
    run: Run, run_json: RunJson, legacy: Path
) -> None:
    write_markers(
        legacy,
        [
            {"sessionKey": "old:1", "timestamp": "2026-02-03T07:03:53.000Z", "reason": "new"},
            {"sessionKey": "old:2", "reason": "reset"},  # no time: shown as unknown
        ],
    )
    queue(run, "ours")
    keys = [m["sessionKey"] for m in run_json("reflect")["pending"]]
    assert keys == ["old:2", "old:1", "ours"]
    lines = run("reflect").stdout.splitlines()
    assert lines[2:4] == [
        "  • old:2 (reset) — unknown",
        "  • old:1 (new) — 2026-02-03T07:03:53Z",
    ]


@pytest.mark.usefixtures("seeded")
def test_legacy_times_with_an_offset_are_shown_in_utc(run: Run, legacy: Path) -> None:
    write_markers(
        legacy, [{"sessionKey": "k", "timestamp": "2026-02-03T07:03:53.123+02:00", "reason": "new"}]
    )
    assert "  • k (new) — 2026-02-03T05:03:53Z" in run("reflect").stdout.splitlines()


@pytest.mark.usefixtures("seeded")
def test_clear_empties_the_legacy_file_too(run_json: RunJson, legacy: Path) -> None:
    write_markers(legacy, [{"sessionKey": "old", "timestamp": None, "reason": "new"}])
    assert run_json("reflect", "--clear")["cleared"] == 1
    assert json.loads(legacy.read_text()) == []


def test_pending_path_points_at_another_legacy_file(
    run_json: RunJson, tmp_path: Path, legacy: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    write_markers(elsewhere, [{"sessionKey": "there", "timestamp": None, "reason": "new"}])
    write_markers(legacy, [{"sessionKey": "default", "timestamp": None, "reason": "new"}])
    shown = run_json("reflect", "--pending-path", str(elsewhere))
    assert [m["sessionKey"] for m in shown["pending"]] == ["there"]
    run_json("reflect", "--pending-path", str(elsewhere), "--clear")
    assert json.loads(elsewhere.read_text()) == []
    assert json.loads(legacy.read_text())[0]["sessionKey"] == "default"


# ---------------------------------------------------------------- malformed files

MALFORMED = {
    "bad JSON": ('[{"sessionKey": ', "not valid JSON"),
    "an object": ('{"sessionKey": "k"}', "not a JSON array of markers (found an object)"),
    "a string": ('"k"', "not a JSON array of markers (found a string)"),
    "a marker that is a number": ("[1]", "marker 1 is not an object (found a number)"),
    "a marker that is null": ('[{"sessionKey": "k"}, null]', "marker 2 is not an object"),
    "nested too deeply": ("[" * 100_000 + "]" * 100_000, "not valid JSON (nested too deeply"),
}


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("which", ["ours", "legacy"])
@pytest.mark.parametrize("content", MALFORMED.values(), ids=list(MALFORMED))
def test_a_malformed_file_is_a_warning_not_a_crash(
    run: Run, store: Path, legacy: Path, which: str, content: tuple[str, str]
) -> None:
    text, problem = content
    bad, good = (queue_file(store), legacy) if which == "ours" else (legacy, queue_file(store))
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text(text)
    write_markers(good, [{"sessionKey": "fine", "timestamp": None, "reason": "new"}])
    for args in (["reflect"], ["reflect", "--format", "json"]):
        result = run(*args)
        [warning] = result.stderr.splitlines()
        assert warning.startswith(f"warning: ignored {bad}: {problem}")
    pending = json.loads(run("reflect", "--format", "json").stdout)["pending"]
    assert [m["sessionKey"] for m in pending] == ["fine"]  # the other file still counts
    assert bad.read_text() == text  # showing never rewrites it


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{oops", "not valid JSON"),
        ('{"a": 1}', "not a JSON array of markers (found an object)"),
        ("[1]", "marker 1 is not an object (found a number)"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON (nested too deeply to read)"),
    ],
)
def test_queueing_refuses_to_overwrite_a_malformed_queue(
    run: Run, store: Path, text: str, problem: str
) -> None:
    path = queue_file(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    failed = queue(run, "k", expect=1)
    [line] = failed.stderr.splitlines()
    assert line.startswith(f"Error: {path}: {problem}") and "reflect --clear" in line
    assert path.read_text() == text


@pytest.mark.usefixtures("seeded")
def test_a_derived_file_nested_too_deeply_is_ignored_not_an_internal_error(
    run: Run, store: Path
) -> None:
    """The note of how far sessions were reflected on is derived: unusable, it is ignored."""
    (store / ".chitin").mkdir(exist_ok=True)
    (store / ".chitin" / "reflected.json").write_text(
        '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    assert run("reflect").stderr == ""


@pytest.mark.usefixtures("seeded")
def test_clear_resets_a_malformed_queue_so_queueing_works_again(run: Run, store: Path) -> None:
    path = queue_file(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{oops")
    assert run("reflect", "--clear").stdout.endswith("✓ Cleared pending reflections.\n")
    assert json.loads(path.read_text()) == []
    queue(run, "k")
    assert json.loads(path.read_text())[0]["sessionKey"] == "k"


def test_lenient_about_the_fields_of_a_marker(run_json: RunJson, legacy: Path) -> None:
    write_markers(legacy, [{"sessionKey": 7, "timestamp": 12, "extra": True}])
    [marker] = run_json("reflect")["pending"]
    assert marker == {"sessionKey": "7", "timestamp": None, "reason": "unknown"}


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "args",
    [
        ["--queue", "--clear", "--session-key", "k", "--reason", "new"],
        ["--session-key", "k"],
        ["--reason", "new"],
        ["--queue", "--reason", "new"],
        ["--queue", "--session-key", "k"],
        ["--queue", "--session-key", "k", "--reason", "stop"],
        ["--queue", "--session-key", "k", "--reason", "new", "--pending-path", "x.json"],
    ],
)
def test_usage_errors(run: Run, args: list[str]) -> None:
    result = run("reflect", *args, expect=2)
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: ") and "see 'chitin reflect --help'" in line


def test_queueing_without_a_store_says_to_run_init(run: Run, store: Path) -> None:
    result = queue(run, "k", expect=1)
    assert result.stderr.splitlines() == [f"Error: no store at {store}; run `chitin init` first"]
    assert not store.exists()


@pytest.mark.usefixtures("seeded")
def test_an_empty_session_key_is_refused(run: Run, store: Path) -> None:
    result = queue(run, "  ", expect=1)
    assert result.stderr.startswith("Error: the session key cannot be empty")
    assert not queue_file(store).exists()


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("option", ["--session-key", "--session-id"])
def test_a_session_name_that_is_not_utf8_is_refused(run: Run, store: Path, option: str) -> None:
    """A byte that is not UTF-8 (0xff, read by Python as \\udcff) failed the queue's
    write as an internal error, exit 3 (qa53)."""
    names = {"--session-key": "k", "--session-id": "s-1"}
    names[option] += "\udcff"
    args = [item for pair in names.items() for item in pair]
    result = run("reflect", "--queue", *args, "--reason", "new", expect=1)
    assert result.stderr.startswith("Error: the session ") and "is not valid UTF-8" in result.stderr
    assert not queue_file(store).exists()


@pytest.mark.usefixtures("seeded")
def test_a_queue_holding_a_lone_surrogate_escape_still_reads(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """1.4.5's hook wrote any key it was given, and JSON can hold half a UTF-16 pair
    (\\ud83d); read back, no output could encode it: `reflect` and `reflect --queue`
    failed with an internal error (exit 3). It now reads as U+FFFD."""
    half = "\\ud83d"
    legacy = tmp_path / "pending-reflection.json"
    legacy.write_text(f'[{{"sessionKey": "agent:main:{half}", "reason": "new{half}"}}]')
    queue_file(store).parent.mkdir(parents=True, exist_ok=True)
    queue_file(store).write_text(
        f'[{{"sessionKey": "k{half}", "reason": "end", "injected": ["a{half}"]}}]'
    )
    shown = run("reflect", "--pending-path", str(legacy))
    assert "agent:main:\ufffd (new\ufffd)" in shown.stdout and "k\ufffd (end)" in shown.stdout
    queue(run, "after")
    keys = [m["sessionKey"] for m in run_json("reflect", "--pending-path", str(legacy))["pending"]]
    assert keys == ["k\ufffd", "agent:main:\ufffd", "after"]
    run("reflect", "--pending-path", str(legacy), "--done", "k\ufffd")


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("option", ["--transcript", "--agent-database"])
def test_a_path_that_is_not_utf8_is_refused(run: Run, store: Path, option: str) -> None:
    """A file named with a byte that is not UTF-8 (0xff, read by Python as \\udcff)
    failed the queue's write as an internal error, exit 3."""
    args = [option, "/tmp/s-1\udcff.jsonl", "--session-key", "k", "--session-id", "s-1"]
    result = run("reflect", "--queue", *args, "--reason", "new", expect=1)
    first = result.stderr.splitlines()[0]
    assert first.startswith("Error: the ") and "path /tmp/s-1\\udcff.jsonl" in first
    assert "is not valid UTF-8 (at character 9)" in first
    assert not queue_file(store).exists()


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("key", ["k\udcff", "k\nl", "k\u200b"], ids=["not-utf8", "break", "zwsp"])
@pytest.mark.parametrize("lean", [False, True], ids=["click", "program"])
def test_render_refuses_the_session_keys_the_queue_refuses(
    run: Run, store: Path, tmp_path: Path, key: str, lean: bool
) -> None:
    """render --session noted a key that reflect --queue then refused (qa56): one rule,
    the queue's, for both; nothing is rendered or noted under a refused key."""
    queued = run("reflect", "--queue", "--session-key", key, "--reason", "new", expect=1)
    output = tmp_path / "P.md"
    args = ["render", "--session", key, "--output", str(output)]
    if lean:  # the session start's own parser (cli/lean.py), as OpenClaw's hook runs it
        env = {**os.environ, "CHITIN_FRONT": "0", "CHITIN_STORE": str(store)}
        done = subprocess.run(
            [installed_chitin(), *args], capture_output=True, env=env, stdin=subprocess.DEVNULL,
            timeout=120, errors="surrogateescape",
        )  # fmt: skip
        code, stderr = done.returncode, done.stderr
    else:
        rendered = run(*args, expect=1)
        code, stderr = rendered.exit_code, rendered.stderr
    assert code == 1 and stderr.startswith("Error: the session ")
    assert stderr.split(";")[0].split("session ")[1] == queued.stderr.split(";")[0].split("key ")[1]
    assert not output.exists() and not list(store.glob(f".chitin/{NOTES_FOLDER}/*"))


@pytest.mark.usefixtures("seeded")
@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc, where no file is made")
def test_render_notes_the_session_only_once_its_output_is_written(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """render --session S --output F noted S before writing F: an --output that failed
    (here a folder where no file can be made, even by root) still left the note, as if
    the session had been given the insights."""
    failed = run("render", "--session", "s-1", "--output", "/proc/P.md", expect=None)
    assert failed.exit_code != 0
    assert not list(store.glob(f".chitin/{NOTES_FOLDER}/*"))
    run("render", "--session", "s-1", "--output", str(tmp_path / "P.md"))
    assert len(list(store.glob(f".chitin/{NOTES_FOLDER}/*"))) == 1


# ---------------------------------------------------------------- concurrency


def installed_chitin() -> str:
    beside = Path(sys.executable).parent / "chitin"
    found = str(beside) if beside.exists() else shutil.which("chitin")
    assert found, "the chitin console script is not installed (pip install -e .)"
    return found


@pytest.mark.usefixtures("seeded")
def test_markers_queued_at_once_all_land(store: Path, run_json: RunJson) -> None:
    workers = [
        subprocess.Popen(
            [
                *(installed_chitin(), "--store", str(store), "reflect", "--queue"),
                *("--session-key", f"parallel:{n}", "--reason", "new"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(8)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    keys = {m["sessionKey"] for m in run_json("reflect")["pending"]}
    assert keys == {f"parallel:{n}" for n in range(8)}


# ---------------------------------------------------------------- the model, directly


def test_marker_timestamps_are_utc_with_milliseconds() -> None:
    moment = datetime(2026, 2, 3, 7, 3, 53, 123456, tzinfo=UTC)
    assert reflection.marker_timestamp(moment) == "2026-02-03T07:03:53.123Z"
    made = reflection.new_marker(" k ", "new", moment)
    assert made == Marker("k", "2026-02-03T07:03:53.123Z", "new")


def test_parse_queue_reads_markers_and_names_problems() -> None:
    assert reflection.parse_queue("") == reflection.Parsed([])
    parsed = reflection.parse_queue('[{"sessionKey": "a", "timestamp": "t", "reason": "new"}]')
    assert parsed == reflection.Parsed([Marker("a", "t", "new")])
    assert reflection.parse_queue("nope").problem is not None
    assert reflection.parse_queue('[{"a": 1}, []]').problem == (
        "marker 2 is not an object (found an array)"
    )


def test_serialize_round_trips() -> None:
    markers = [Marker("a", "2026-01-01T00:00:00.000Z", "new"), Marker("b", None, "end")]
    assert reflection.parse_queue(reflection.serialize(markers)).markers == markers


def test_appended_keeps_the_newest() -> None:
    markers = [Marker(str(n), None, "new") for n in range(10)]
    kept = reflection.appended(markers, Marker("new", None, "new"))
    assert [m.session_key for m in kept] == [str(n) for n in range(1, 10)] + ["new"]


def test_oldest_first_puts_unreadable_times_first_and_keeps_ties_in_order() -> None:
    late = Marker("late", "2026-03-01T00:00:00.000Z", "new")
    early = Marker("early", "2026-01-01T00:00:00+00:00", "new")
    garbled = Marker("garbled", "yesterday", "new")
    tie = Marker("tie", "2026-03-01T00:00:00Z", "new")
    assert reflection.oldest_first([late, garbled], [early, tie]) == [garbled, early, late, tie]
    assert reflection.display_time(garbled) == "yesterday"


# ---------------------------------------------------------------- where the session is


@pytest.mark.usefixtures("seeded")
def test_a_queued_marker_keeps_where_the_session_is_and_what_it_was_given(
    run: Run, store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: --transcript (made absolute) and --agent-database go into the marker;
    the insights `render --session` gave that session are named in it."""
    monkeypatch.chdir(tmp_path)
    rendered = run("render", "--query", "tests", "--budget", "200", "--session", "s-7").stdout
    run("reflect", "--queue", "--session-key", "chat", "--session-id", "s-7",
        "--transcript", "t/s-7.jsonl", "--reason", "new")  # fmt: skip
    run("reflect", "--queue", "--session-key", "chat", "--session-id", "s-8",
        "--agent-database", "a.sqlite", "--reason", "reset")  # fmt: skip
    first, second = json.loads(queue_file(store).read_text())
    assert first["transcript"] == str(tmp_path / "t" / "s-7.jsonl")
    claims = {i["id"]: i["claim"] for i in json.loads(run("list", "--format", "json").stdout)}
    assert first["injected"] and all(claims[i] in rendered for i in first["injected"])
    assert second["agentDatabase"] == str(tmp_path / "a.sqlite") and "injected" not in second
    assert not (tmp_path / "t").exists()


@pytest.mark.usefixtures("seeded")
def test_an_agent_database_needs_the_session_id(run: Run) -> None:
    said = run("reflect", "--queue", "--session-key", "k", "--agent-database", "a.sqlite",
               "--reason", "new", expect=2)  # fmt: skip
    assert "--agent-database needs --session-id" in said.stderr
    said = run("reflect", "--transcript", "x.jsonl", expect=2)
    assert "go with --queue" in said.stderr


@pytest.mark.parametrize(("value", "said"), [("-", "stdin is not read here"), ("", "it is empty")])
@pytest.mark.parametrize("option", ["--transcript", "--agent-database"])
def test_a_dash_or_empty_transcript_is_a_usage_error(
    run: Run, store: Path, option: str, value: str, said: str
) -> None:
    """``--transcript -`` was queued as a file named "-" in the current folder, which
    the digest later called gone: neither path option reads stdin."""
    args = ["--session-id", "s"] if option == "--agent-database" else []
    result = run("reflect", "--queue", "--session-key", "k", *args, option, value,
                 "--reason", "new", expect=2)  # fmt: skip
    [line] = result.stderr.splitlines()
    assert option in line and said in line and "path" in line
    assert not queue_file(store).exists()
