"""A Carapace server that is not to be trusted (issue 27, items 3 and 4): an endless
body, a gzip bomb, a server that drips a byte at a time, one that sends more results
than asked for, one that echoes the API key, and one whose agent id holds ``../``.
Each ends in one line, within the command's deadline, with nothing leaked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from carapace_server import CarapaceServer, drip, endless_body, gzip_bomb
from conftest import Run

from chitin.providers.carapace import MAX_ANSWER_BYTES


def credentials_file(home: Path) -> Path:
    return home / ".config" / "carapace" / "credentials.json"


@pytest.fixture
def key(carapace: CarapaceServer, run: Run, tmp_path: Path) -> str:
    run("init")
    run("carapace-register", "--name", "Test Bot", "--format", "json")
    return str(json.loads(credentials_file(tmp_path / "home").read_text())["api_key"])


def one_line_error(run: Run, *args: str) -> str:
    result = run(*args, expect=1)
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr.strip()


def result_of(claim: str, number: int = 1) -> dict[str, Any]:
    return {
        "id": f"hostile-{number}", "claim": claim, "confidence": 0.8, "domainTags": [],
        "contributor": {"id": "a", "displayName": "A", "trustScore": 0.5},
        "relevance": 0.9,
    }  # fmt: skip


def test_an_endless_body_is_cut_off_at_the_cap(
    carapace: CarapaceServer, run: Run, key: str
) -> None:
    carapace.stream_next(endless_body())
    line = one_line_error(run, "carapace-query", "anything")
    assert f"is larger than {MAX_ANSWER_BYTES:,} bytes" in line and "(BAD_RESPONSE)" in line


def test_a_gzip_bomb_is_not_inflated_past_the_cap(
    carapace: CarapaceServer, run: Run, key: str
) -> None:
    carapace.stream_next(gzip_bomb())
    line = one_line_error(run, "carapace-query", "anything")
    assert f"is larger than {MAX_ANSWER_BYTES:,} bytes" in line


def test_a_compressed_answer_within_the_cap_is_read(
    carapace: CarapaceServer, run: Run, key: str
) -> None:
    carapace.stream_next(gzip_bomb(inflated=1024 * 1024))
    assert run("carapace-query", "anything").stdout.endswith("No results found.\n")
    asked = carapace.requests[-1].header("Accept-Encoding") or ""
    assert "br" not in asked and "gzip" in asked  # only what chitin inflates itself


def test_a_drip_fed_answer_ends_at_the_command_deadline(
    carapace: CarapaceServer, run: Run, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARAPACE_TIMEOUT", "1")
    # Each byte comes well within the 30 s read timeout; the whole would take 10 s,
    # and is cut off at 4 s (so that a client without a deadline ends too).
    carapace.stream_next(drip(every=0.1, count=40))
    line = one_line_error(run, "carapace-query", "anything")
    assert line.startswith("Carapace error: no complete answer from 127.0.0.1:")
    assert "within 1 s" in line and line.endswith("(TIMEOUT)")


def test_the_deadline_is_checked_and_bounded(
    carapace: CarapaceServer, run: Run, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for bad in ("0", "soon", "99999"):
        monkeypatch.setenv("CARAPACE_TIMEOUT", bad)
        line = one_line_error(run, "carapace-query", "anything")
        assert "the Carapace timeout must be a number of seconds from 1 to 3600" in line
    monkeypatch.setenv("CARAPACE_TIMEOUT", "5")
    run("carapace-query", "anything")


def test_max_is_honoured_whatever_the_server_sends(
    carapace: CarapaceServer, run: Run, key: str
) -> None:
    flood = {"results": [result_of(f"Claim {n}", n) for n in range(3000)], "totalMatches": 3000}
    carapace.fail_next(200, flood)
    shown = json.loads(run("carapace-query", "anything", "--max", "5", "--format", "json").stdout)
    assert [r["id"] for r in shown["results"]] == [f"hostile-{n}" for n in range(5)]
    carapace.fail_next(200, flood)
    text = run("carapace-query", "anything", "--max", "3").stdout
    assert "hostile-2" in text and "hostile-3" not in text


def test_an_echoed_key_is_never_printed(carapace: CarapaceServer, run: Run, key: str) -> None:
    carapace.fail_next(
        401, {"error": {"code": "UNAUTHORIZED", "message": f"Invalid API key Bearer {key}",
                        "details": {"fields": [f"key {key}"]}}},
    )  # fmt: skip
    line = one_line_error(run, "carapace-query", "anything")
    assert key not in line and "[redacted API key]" in line
    echoed = {"results": [result_of(f"Your key is {key}")], "totalMatches": 1, "note": key}
    for fmt in ("human", "json"):
        carapace.fail_next(200, echoed)
        result = run("carapace-query", "anything", "--format", fmt)
        assert key not in result.stdout + result.stderr
        assert "[redacted API key]" in result.stdout


def test_a_registration_answer_that_repeats_the_key_shows_it_nowhere(
    carapace: CarapaceServer, run: Run, tmp_path: Path
) -> None:
    run("init")
    secret = "chk_" + "Zq8" * 12
    carapace.fail_next(
        201, {"id": "agent-1", "displayName": "Bot", "apiKey": secret,
              "message": f"store {secret} safely"},
    )  # fmt: skip
    for fmt in ("human", "json"):
        if fmt == "json":
            credentials_file(tmp_path / "home").unlink()
            carapace.fail_next(201, {"id": "agent-1", "apiKey": secret, "echo": secret})
        result = run("carapace-register", "--name", "Bot", "--format", fmt)
        assert secret not in result.stdout + result.stderr
        assert json.loads(credentials_file(tmp_path / "home").read_text())["api_key"] == secret


def test_a_rescue_file_is_never_named_after_the_server_s_agent_id(tmp_path: Path) -> None:
    from chitin.providers.credentials import Credentials, rescue

    home = tmp_path / "home"
    rescued = rescue(Credentials("chk_k", "../../../escaped"), home)
    assert rescued is not None and rescued.parent == home
    assert "escaped" not in rescued.name and ".." not in rescued.name
    assert not list(tmp_path.parent.glob("*escaped*")) and not list(tmp_path.glob("*escaped*"))


UNUSABLE_KEYS = {
    "a newline": "sc_key_SECRETPART\nX-Injected: 1",
    "a NUL": "sc_key_SECRETPART\x00",
    "non-ASCII": "sc_key_SECRETPARTé€",
    "a space inside": "sc_key_SECRET PART",
}


@pytest.mark.parametrize("given", UNUSABLE_KEYS.values(), ids=UNUSABLE_KEYS.keys())
def test_a_key_that_cannot_be_sent_is_refused_without_being_shown(
    carapace: CarapaceServer, run: Run, add: Any, tmp_path: Path, given: str
) -> None:
    """httpx refuses such a header with a message that quotes it (the key, printed), or
    fails to encode it (an internal error). The file is refused, in one line, unshown."""
    path = credentials_file(tmp_path / "home")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"api_key": given, "agent_id": "a-1"}))
    path.chmod(0o600)
    insight_id = add("skill", "Read the error message before searching the web", 0.9)["id"]
    for args in (("carapace-query", "anything"), ("promote", insight_id, "--force")):
        line = one_line_error(run, *args)
        assert "SECRETPART" not in line and "api_key" in line and str(path) in line, line
    assert carapace.requests == []


def test_a_registration_answer_with_an_unusable_key_says_so(
    carapace: CarapaceServer, run: Run, tmp_path: Path
) -> None:
    run("init")
    carapace.fail_next(201, {"id": "agent-1", "displayName": "Bot", "apiKey": "k\nSECRETPART"})
    line = one_line_error(run, "carapace-register", "--name", "Bot")
    assert "SECRETPART" not in line and "API key" in line, line
    assert not credentials_file(tmp_path / "home").exists()


@pytest.mark.parametrize("given", [{}, {"id": ""}, {"id": 42}], ids=["none", "blank", "a number"])
@pytest.mark.parametrize("fmt", ["human", "json"])
def test_a_registration_answer_without_an_agent_id_is_refused_and_its_key_kept(
    carapace: CarapaceServer, run: Run, tmp_path: Path, given: dict[str, Any], fmt: str
) -> None:
    """A 201 without an id printed an empty "Agent ID:" line and saved the credentials
    as if all were well. The server shows a key once: it goes where a key the file
    cannot take goes (a 0600 file the error names), and the credentials file is not made."""
    run("init")
    home = tmp_path / "home"
    secret = "chk_" + "Id9" * 12
    carapace.fail_next(201, {"displayName": "Bot", "apiKey": secret, **given})
    line = one_line_error(run, "carapace-register", "--name", "Bot", "--format", fmt)
    assert "its answer gives no agent id (id), so its credentials were not saved to" in line
    assert secret not in line
    assert not credentials_file(home).exists()
    rescued = Path(line.split("; they are in ")[1].split(" (mode 0600)")[0])
    assert json.loads(rescued.read_text())["api_key"] == secret


def test_a_refusal_s_text_cannot_drive_the_terminal_or_flood_it(
    carapace: CarapaceServer, run: Run, key: str
) -> None:
    """A server's error is printed as a contribution is (test_carapace.py's
    test_remote_text_cannot_drive_the_terminal): escapes made visible, and cut short."""
    carapace.fail_next(
        400, {"error": {"code": "\x1b[2J", "message": "\x1b[31mred\x1b[0m \x07 \u202eevil",
                        "details": {"reasons": ["\x1b]0;pwned\x07"], "fields": ["f\x1b[1m"]}}},
    )  # fmt: skip
    line = one_line_error(run, "carapace-query", "anything")
    assert not any(c in line for c in "\x1b\x07\u202e"), repr(line)
    assert "\\u001b[31mred" in line and "\\u001b]0;pwned\\u0007" in line
    carapace.fail_next(400, {"error": {"code": "INVALID_REQUEST", "message": "word " * 20_000}})
    assert len(one_line_error(run, "carapace-query", "anything")) < 1_000


def test_a_contribution_holding_a_credential_is_refused_with_no_flag_it_lacks(
    carapace: CarapaceServer, run: Run, store: Path
) -> None:
    """import-carapace has no --allow-secret: its refusal must not send the user to it."""
    run("init")
    token = "ghp_" + "a1B2c3D4e5" * 4
    theirs = carapace.add_contribution(carapace.add_agent("Other"), f"Push with {token} here")
    line = one_line_error(run, "import-carapace", theirs.id)
    assert "GitHub token" in line and "--allow-secret" not in line and token not in line, line
    assert list((store / "insights").rglob("*.md")) == []


@pytest.mark.parametrize(
    ("body", "said"),
    [("[1, 2]", "JSON array"), ('"ok"', "JSON string"), ("null", "JSON null"),
     ("<html>", "an HTML page"), ("{oops", "application/json that is not JSON")],
)  # fmt: skip
def test_an_answer_that_is_not_an_object_says_what_it_is(
    carapace: CarapaceServer, run: Run, body: str, said: str
) -> None:
    run("init")
    carapace.fail_next(200, body.encode(), {"Content-Type": "application/json"})
    line = one_line_error(run, "import-carapace", "c-1")
    assert f"the answer is {said}" in line and "not a Carapace JSON object" in line, line


def test_a_credentials_path_that_is_no_regular_file_is_refused_not_waited_on(
    carapace: CarapaceServer, run: Run, tmp_path: Path
) -> None:
    """A FIFO there made every command wait forever for a writer; /dev/zero read as
    "not a JSON object". Neither is a credentials file, and each is said so."""
    import os

    run("init")
    fifo = tmp_path / "credentials.fifo"
    os.mkfifo(fifo)
    for path, said in ((fifo, "a FIFO"), (Path("/dev/zero"), "a device")):
        line = one_line_error(run, "carapace-query", "x", "--carapace-config", str(path))
        assert f"{path} is {said}, not a regular file" in line, line
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"api_key": "sc_key_x", "padding": "x" * 70_000}))
    line = one_line_error(run, "carapace-query", "x", "--carapace-config", str(big))
    assert "larger than" in line, line
    assert carapace.requests == []


def test_results_that_are_not_contributions_are_not_counted_as_found(
    carapace: CarapaceServer, run: Run, key: str
) -> None:
    carapace.fail_next(
        200, {"_meta": {"warning": ["not", "text"]}, "results": [1, "a", None],
              "totalMatches": "many"},
    )  # fmt: skip
    assert run("carapace-query", "anything").stdout == "No results found.\n"
    carapace.fail_next(
        200, {"_meta": {"warning": "Untrusted"}, "results": [result_of("Pin versions"), 7],
              "totalMatches": [3]},
    )  # fmt: skip
    shown = run("carapace-query", "anything").stdout
    assert shown.startswith("⚠ Untrusted\n\nFound 1 insight(s) (1 total matches):"), shown


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [("confidence", 7, "confidence must be between 0 and 1, got 7"),
     ("confidence", {"a": 1}, 'got {"a": 1}'),
     ("confidence", True, "got true"),
     ("id", 5, "invalid Carapace id 5"),
     ("domainTags", [None], "tag must be text, got null"),
     ("reasoning", False, "reasoning must be a text, got false")],
)  # fmt: skip
def test_a_bad_value_in_the_answer_is_the_server_s_not_the_user_s(
    carapace: CarapaceServer, run: Run, store: Path, field: str, value: Any, said: str
) -> None:
    """The user typed none of these: the line says the server sent it, and shows the
    value as JSON (the server's form), not as Python prints it."""
    run("init")
    answer = {"id": "c-1", "claim": "Pin the versions", "confidence": 0.8, "domainTags": []}
    carapace.fail_next(
        200, json.dumps({**answer, field: value}).encode(), {"Content-Type": "application/json"}
    )
    line = one_line_error(run, "import-carapace", "c-1")
    assert line.startswith("Error: Carapace answered ") and "for contribution c-1: " in line, line
    assert said in line, line
    assert "True" not in line and "'a'" not in line and "None" not in line, line
    assert list((store / "insights").rglob("*.md")) == []


def test_a_bad_id_in_a_promotion_s_answer_is_the_server_s(
    carapace: CarapaceServer, run: Run, key: str
) -> None:
    made = run("contribute", "--type", "skill", "--claim", "Pin the dependency versions",
               "--confidence", "0.9", "--tags", "deps", "--provenance", "external",
               "--format", "json")  # fmt: skip
    insight = json.loads(made.stdout)["insight"]["id"]
    carapace.fail_next(201, b'{"id": 5}', {"Content-Type": "application/json"})
    failed = run("promote", insight, "--force", expect=1)  # the text was sent: said first
    warned, line = failed.stderr.split("\n\n")
    assert warned.startswith("⚠ Promoting with warnings (--force):\n  - Insufficient")
    assert line.startswith("Error: Carapace answered ") and "invalid Carapace id 5" in line, line
