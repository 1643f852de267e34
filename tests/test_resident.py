"""The resident embedder (providers/resident.py, resident_server.py): real processes on
a real Unix socket, in a short private folder of their own (a socket's path has 108
bytes: tmp_path is too long). Whatever happens to the resident, the caller gets the
vectors its own model gives. Every resident a test starts is stopped at its end."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import peer_pid

from chitin import residency
from chitin.providers import create
from chitin.providers import resident as client
from chitin.providers.local import LocalProvider
from chitin.providers.resident import Resident, installation_key
from chitin.residency import MOST_IDLE

TEXTS = ["Reproduce a bug before fixing it", "Keep release notes short"]
READY_SECONDS = 120.0  # a model's load on a loaded two-core machine


@pytest.fixture()
def folder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="cr", dir="/tmp"))
    os.chmod(made, 0o700)
    monkeypatch.setenv("CHITIN_RESIDENT", "on")
    monkeypatch.setenv(client.FOLDER, str(made))
    yield made
    for sock in made.glob("*.sock"):
        _stop(sock)
    shutil.rmtree(made, ignore_errors=True)


def _stop(sock: Path) -> None:
    """Kill the resident answering at ``sock`` (its pid from the socket's credentials)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(sock))
            pid, _, _ = np.frombuffer(
                probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12), dtype=np.int32
            )
        except OSError:
            return
    os.kill(int(pid), signal.SIGKILL)


def _settings(folder: Path, cache: Path, idle: float = 60.0) -> Resident:
    return Resident(folder, installation_key(), idle, cache)


def _serve(settings: Resident, key: str | None = None) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "chitin.providers.resident_server"]
    argv += ["--socket", str(settings.socket), "--key", key or settings.key]
    argv += ["--idle", str(settings.idle), "--prepared", str(settings.prepared_root)]
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL)


def _ready(settings: Resident) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while client.ask(settings, ["ready?"]) is None:
        assert time.monotonic() < deadline, "the resident never answered"
        time.sleep(0.2)


def _in_process(texts: list[str]) -> np.ndarray:
    provider = LocalProvider()
    try:
        return provider.embed(texts, "document")
    finally:
        provider.close()


def _asked(settings: Resident, texts: list[str]) -> np.ndarray | None:
    answered = client.ask(settings, texts)
    if answered is None:
        return None
    return np.frombuffer(answered, dtype="<f4").reshape(len(texts), -1)


def test_the_first_user_starts_one_and_the_next_process_uses_it(
    folder: Path, machine_cache: Path
) -> None:
    env = dict(os.environ)
    first = create("local", env=env)
    assert isinstance(first, LocalProvider)
    expected = first.embed(TEXTS, "document")  # in-process: none ran; it starts one
    assert first._session is not None
    _ready(first_settings := client.settings(env, machine_cache))  # type: ignore[arg-type]
    assert (
        first_settings.socket.exists() and oct(first_settings.socket.stat().st_mode)[-3:] == "600"
    )
    second = create("local", env=env)
    assert isinstance(second, LocalProvider)
    got = second.embed(TEXTS, "document")
    rows = second.rows(TEXTS)
    assert second._session is None  # no model loaded in this process
    np.testing.assert_allclose(got, expected, atol=1e-4)
    np.testing.assert_allclose(np.array([list(r) for r in rows]), expected, atol=1e-4)
    first.close()


def test_turned_off_it_is_never_asked_nor_started(folder: Path, machine_cache: Path) -> None:
    env = {**os.environ, "CHITIN_RESIDENT": "0"}
    provider = create("local", env=env)
    assert isinstance(provider, LocalProvider) and provider.resident is None
    provider.embed(TEXTS, "document")
    provider.close()
    assert list(folder.iterdir()) == []


def test_killed_mid_answer_the_caller_embeds_itself(folder: Path, machine_cache: Path) -> None:
    settings = _settings(folder, machine_cache)
    server = _serve(settings)
    _ready(settings)
    os.kill(server.pid, signal.SIGSTOP)  # connected, asked, and no answer yet ...
    provider = LocalProvider(prepared_root=machine_cache, resident=settings)
    result: list[np.ndarray] = []
    asking = threading.Thread(target=lambda: result.append(provider.embed(TEXTS, "document")))
    asking.start()
    time.sleep(0.3)
    server.kill()  # ... when it dies
    server.wait()
    asking.join(30)
    np.testing.assert_allclose(result[0], _in_process(TEXTS), atol=1e-4)
    assert provider._session is not None and provider.resident is None
    provider.close()


def test_a_resident_that_hangs_costs_about_a_second(folder: Path, machine_cache: Path) -> None:
    settings = _settings(folder, machine_cache)
    server = _serve(settings)
    _ready(settings)
    os.kill(server.pid, signal.SIGSTOP)
    try:
        assert client.ask(settings, TEXTS) is None  # timed out, not waited for forever
    finally:
        server.kill()
        server.wait()


def test_a_stale_socket_is_refused_then_replaced(folder: Path, machine_cache: Path) -> None:
    settings = _settings(folder, machine_cache)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(settings.socket))  # a killed resident's file: nobody listens
    left.close()
    provider = LocalProvider(prepared_root=machine_cache, resident=settings)
    np.testing.assert_allclose(provider.embed(TEXTS, "document"), _in_process(TEXTS), atol=1e-4)
    provider.close()
    _ready(settings)  # the provider started one, which took the path over
    assert _asked(settings, TEXTS) is not None


def test_it_exits_when_idle_and_removes_its_socket(folder: Path, machine_cache: Path) -> None:
    settings = _settings(folder, machine_cache, idle=1.0)
    server = _serve(settings)
    _ready(settings)
    assert server.wait(timeout=60) == 0
    assert not settings.socket.exists()
    assert not settings.socket.with_suffix(".lock").exists()


def test_one_instance_and_two_clients_at_once(folder: Path, machine_cache: Path) -> None:
    settings = _settings(folder, machine_cache)
    server = _serve(settings)
    _ready(settings)
    second = _serve(settings)
    assert second.wait(timeout=60) == 0  # the lock is held: it leaves at once
    answers: list[np.ndarray | None] = []
    texts = [[f"{text} {n}" for text in TEXTS] for n in range(2)]
    askers = [
        threading.Thread(target=lambda t=t: answers.append(_asked(settings, t))) for t in texts
    ]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(30)
    assert len(answers) == 2 and all(answer is not None for answer in answers)
    both = {tuple(np.round(a[0], 4)) for a in answers if a is not None}
    expected = {tuple(np.round(_in_process(t)[0], 4)) for t in texts}
    assert both == expected
    server.kill()
    server.wait()


def test_another_installation_is_not_used(folder: Path, machine_cache: Path) -> None:
    settings = _settings(folder, machine_cache)
    server = _serve(settings, key="another-version")  # at our socket's path
    try:
        deadline = time.monotonic() + READY_SECONDS
        while not settings.socket.exists():
            assert time.monotonic() < deadline
            time.sleep(0.2)
        time.sleep(0.2)
        assert client.ask(settings, TEXTS) is None
    finally:
        server.kill()
        server.wait()


def test_a_bad_answer_is_not_a_vector(folder: Path, machine_cache: Path) -> None:
    """A server that answers our key with vectors that are not unit vectors."""
    settings = _settings(folder, machine_cache)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(settings.socket))
    listener.listen(1)

    def answer() -> None:
        connection, _ = listener.accept()
        with connection:
            client.receive_frame(connection, None)
            header = {"key": settings.key, "rows": 1, "dimensions": 384}
            client.send_frame(connection, header, np.full(384, np.nan, "<f4").tobytes())

    serving = threading.Thread(target=answer)
    serving.start()
    assert client.ask(settings, TEXTS[:1]) is None
    serving.join(10)
    listener.close()


def test_a_folder_others_may_enter_is_never_used(folder: Path, machine_cache: Path) -> None:
    os.chmod(folder, 0o755)
    settings = _settings(folder, machine_cache)
    assert client.ask(settings, TEXTS) is None
    assert client.start(settings) is False
    assert list(folder.iterdir()) == []


def test_the_door_judges_the_same_through_the_resident(
    folder: Path, machine_cache: Path, tmp_path: Path
) -> None:
    """contribute's verdicts (a duplicate by meaning, its score) are the same with the
    resident answering as with the model in-process."""
    from chitin import Chitin

    def reported(store: Path) -> list[tuple[str, float]]:
        with Chitin(store=store) as chitin:
            chitin.contribute(
                {"type": "skill", "claim": "Reproduce a bug before fixing it", "confidence": 0.7}
            )
            made = chitin.contribute(
                {"type": "skill", "claim": "Reproduce the bug before you fix it", "confidence": 0.7}
            )
        return [(m.id.split("-")[0], round(m.similarity, 4)) for m in made.duplicates]

    os.environ["CHITIN_RESIDENT"] = "0"
    try:
        alone = reported(tmp_path / "alone")
    finally:
        os.environ["CHITIN_RESIDENT"] = "on"
    settings = client.settings(os.environ, machine_cache)
    assert settings is not None
    server = _serve(settings)
    _ready(settings)
    assert reported(tmp_path / "resident") == alone and alone
    server.kill()
    server.wait()


def test_asked_early_and_killed_before_the_answer_is_read(
    folder: Path, machine_cache: Path
) -> None:
    """rows_later (the door asks before its commit, reads after): a resident that dies
    in between costs the caller an in-process embedding, not an error."""
    settings = _settings(folder, machine_cache)
    server = _serve(settings)
    _ready(settings)
    provider = LocalProvider(prepared_root=machine_cache, resident=settings)
    os.kill(server.pid, signal.SIGSTOP)
    arriving = provider.rows_later(TEXTS)
    server.kill()
    server.wait()
    rows = np.array([list(row) for row in arriving()])
    np.testing.assert_allclose(rows, _in_process(TEXTS), atol=1e-4)
    assert provider._session is not None and provider.resident is None
    provider.close()


def test_a_folder_too_long_for_a_socket_turns_it_off_only_without_proc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket's path longer than its 108 bytes is reached through /proc/self/fd
    (residency.at_socket); where there is no such folder (no /proc: macOS), no socket
    can be made there, and the resident is never started in vain."""
    monkeypatch.setenv("CHITIN_RESIDENT", "on")
    monkeypatch.setenv(client.FOLDER, "/tmp/" + "x" * 100)
    assert client.settings(os.environ, None) is not None  # Linux: /proc/self/fd
    monkeypatch.setattr(residency, "PROC_FD", str(tmp_path / "no-proc"))
    assert client.settings(os.environ, None) is None
    monkeypatch.setenv(client.FOLDER, "/tmp/short")
    assert client.settings(os.environ, None) is not None


def test_a_folder_too_long_for_a_socket_still_has_its_resident(
    tmp_path: Path, machine_cache: Path
) -> None:
    """fix125: with the user's folder of the moment long enough that the socket's path
    passed 108 bytes (a long $CHITIN_RESIDENT_DIR or $XDG_RUNTIME_DIR), the resident
    embedder was turned off, and every contribute loaded the model itself. Through the
    real CLI: the first contribute starts one there, and the next is answered by it
    (neither onnxruntime nor numpy is loaded)."""
    from test_vector_search import loaded_modules

    run = tmp_path / ("long-folder-" * 8) / "run"
    env = {**os.environ, "CHITIN_RESIDENT": "on", "CHITIN_FRONT": "0", client.FOLDER: str(run)}
    settings = client.settings(env, machine_cache)
    assert settings is not None and len(os.fsencode(settings.socket)) > 108
    base = [sys.executable, "-m", "chitin", "--store", str(tmp_path / "store")]
    contribute = ["contribute", "--type", "skill", "--confidence", "0.7", "--claim"]
    for argv in (["init", "--seed"], ["embed"], [*contribute, "Read the deploy log first"]):
        done = subprocess.run([*base, *argv], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    try:
        _ready(settings)  # the contribute started it, at the long path
        pid = peer_pid(settings.socket)
        assert pid is not None
        claim = "Read the deployment logs before rolling back"
        loaded, out = loaded_modules([*base[3:], *contribute, claim], env)
        assert "onnxruntime" not in loaded and "numpy" not in loaded and "Contributed" in out
        assert peer_pid(settings.socket) == pid
    finally:
        pid = peer_pid(settings.socket)
        if pid is not None:
            os.kill(pid, signal.SIGKILL)


def test_the_idle_time_set_by_the_environment_ends_it(
    folder: Path, machine_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CHITIN_RESIDENT_IDLE reaches the resident its first user starts."""
    monkeypatch.setenv(client.IDLE, "1")
    settings = client.settings(os.environ, machine_cache)
    assert settings is not None and settings.idle == 1.0
    provider = create("local", env=dict(os.environ))
    provider.embed(TEXTS, "document")  # none runs: this starts one
    _ready(settings)
    deadline = time.monotonic() + READY_SECONDS
    while settings.socket.exists():  # gone by itself, a second after its last answer
        assert time.monotonic() < deadline, "the resident did not leave when idle"
        time.sleep(0.2)
    assert client.ask(settings, TEXTS) is None
    assert isinstance(provider, LocalProvider)
    provider.close()


@pytest.mark.parametrize(
    ("given", "idle"),
    [("nan", client.IDLE_SECONDS), ("soon", client.IDLE_SECONDS), ("inf", MOST_IDLE),
     ("1e400", MOST_IDLE), ("1e12", MOST_IDLE), ("-5", 0.1), ("90", 90.0)],
)  # fmt: skip
def test_the_idle_time_is_one_a_socket_can_wait(
    folder: Path, given: str, idle: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """socket.settimeout refuses NaN and anything past time_t: such an idle time made
    every resident die at its first wait, and every process start another."""
    monkeypatch.setenv(client.IDLE, given)
    settings = client.settings(os.environ, None)
    assert settings is not None and settings.idle == idle
    with socket.socket() as listener:
        listener.settimeout(settings.idle)  # what the resident does with it


def test_token_vectors_come_from_the_resident_as_from_the_model(
    folder: Path, machine_cache: Path
) -> None:
    """The door's token alignment asks the resident for token vectors ("tokens"): the
    same word pieces and rows as the model in-process, and no model loaded here."""
    settings = _settings(folder, machine_cache)
    server = _serve(settings)
    _ready(settings)
    provider = LocalProvider(prepared_root=machine_cache, resident=settings)
    answered = provider.tokens(TEXTS)
    assert provider._session is None and provider.resident is not None
    alone = LocalProvider()
    try:
        expected = alone.tokens(TEXTS)
    finally:
        alone.close()
    assert [pieces for pieces, _ in answered] == [pieces for pieces, _ in expected]
    assert answered[0][0][:3] == ("reproduce", "a", "bug")
    for (_, rows), (_, made) in zip(answered, expected, strict=True):
        np.testing.assert_allclose(np.array(rows), np.array(made), atol=1e-3)
    server.kill()
    server.wait()


def test_a_bad_token_answer_costs_the_caller_an_in_process_run(
    folder: Path, machine_cache: Path
) -> None:
    """A server that answers "tokens" with pieces that do not match the texts: the
    provider computes the token vectors itself, and asks that resident no more."""
    settings = _settings(folder, machine_cache)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(settings.socket))
    listener.listen(1)
    asked: list[dict[str, object]] = []

    def answer() -> None:
        connection, _ = listener.accept()
        with connection:
            asked.append(client.receive_frame(connection, None))
            header = {"key": settings.key, "rows": 2, "dimensions": 384, "pieces": [["a"]]}
            client.send_frame(connection, header, np.ones(384, "<f4").tobytes())

    serving = threading.Thread(target=answer)
    serving.start()
    settings.failed.touch()  # no real resident started after the failure, here
    provider = LocalProvider(prepared_root=machine_cache, resident=settings)
    made = provider.tokens(TEXTS)
    serving.join(10)
    listener.close()
    assert asked and asked[0]["tokens"] is True
    assert provider._session is not None and provider.resident is None
    assert [pieces[:2] for pieces, _ in made] == [("reproduce", "a"), ("keep", "release")]
    provider.close()


@pytest.mark.parametrize("embedded", [True, False], ids=["embedded", "embedded-by-the-search"])
def test_the_door_asks_for_token_vectors_before_git_commits(
    folder: Path,
    machine_cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    embedded: bool,
) -> None:
    """A verdict that reads the alignment (the two are 0.55 apart pooled) asks the
    resident for its token vectors in the door's first half, so that they are computed
    while git commits: before the store's pre-commit hook runs. Its candidate's vector
    is stored by `embed`, or by the door's own search (an insight waiting inline); the
    verdict is the one the model in-process gives."""
    from chitin import Chitin

    events = tmp_path / "events"
    real = LocalProvider.tokens_later

    def spy(self: LocalProvider, texts: list[str]) -> object:
        with events.open("a") as log:
            log.write(f"tokens asked: {len(texts)}\n")
        return real(self, texts)

    def reported(store: Path) -> list[tuple[str, float]]:
        with Chitin(store=store) as chitin:
            chitin.contribute(
                {"type": "skill", "claim": "Profile before optimising", "confidence": 0.8}
            )
            if embedded:
                chitin.embed()
            hook = store / ".git" / "hooks" / "pre-commit"
            hook.write_text(f"#!/bin/sh\necho commit >> '{events}'\n")
            hook.chmod(0o755)
            made = chitin.contribute(
                {
                    "type": "skill",
                    "claim": "Measure performance before trying to optimize it",
                    "confidence": 0.7,
                }
            )
        return [(m.id.split("-")[0], round(m.similarity, 4)) for m in made.duplicates]

    monkeypatch.setenv("CHITIN_RESIDENT", "0")
    alone = reported(tmp_path / "alone")
    assert alone and alone[0][0] == "profile"
    monkeypatch.setenv("CHITIN_RESIDENT", "on")
    settings = client.settings(os.environ, machine_cache)
    assert settings is not None
    server = _serve(settings)
    _ready(settings)
    events.unlink()
    monkeypatch.setattr(LocalProvider, "tokens_later", spy)
    try:
        assert reported(tmp_path / "resident") == alone
    finally:
        server.kill()
        server.wait()
    assert events.read_text().splitlines()[-2:] == ["tokens asked: 2", "commit"]
