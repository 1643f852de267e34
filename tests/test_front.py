"""The resident CLI front (chitin/front/): real ``chitin`` processes through a real
front, in a short private folder of their own (a socket's path has 108 bytes). Whatever
happens to the front, a command gives what it gives in-process; once a worker runs it,
it is never run twice. Every front a test starts is killed at its end."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import importlib.util
import json
import marshal
import os
import pty
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import chitin_program, commit_count, peer_pid

from chitin import front

WAIT = 120.0  # seconds: a front's start on a loaded two-core machine


@pytest.fixture()
def folder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="cf", dir="/tmp"))
    monkeypatch.setenv("CHITIN_FRONT", "on")
    monkeypatch.setenv("CHITIN_RESIDENT_DIR", str(made))
    monkeypatch.setenv("CHITIN_FRONT_IDLE", "60")
    yield made
    for sock in made.glob("*.sock"):
        pid = peer_pid(sock)
        if pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    shutil.rmtree(made, ignore_errors=True)


def chitin(
    *args: str, cwd: Path | None = None, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chitin_program(), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=WAIT,
    )


def started(folder: Path, env: dict[str, str] | None = None, besides: int | None = None) -> int:
    """Make sure a front answers in ``folder`` for ``env`` (one that is not ``besides``,
    whose key is another); its pid."""
    chitin("--version", env=env)  # starts one, when none answers
    deadline = time.monotonic() + WAIT
    while True:
        found = {peer_pid(sock) for sock in folder.glob("front-*.sock")} - {None, besides}
        if found:
            [pid] = found
            return int(pid)  # type: ignore[arg-type]
        assert time.monotonic() < deadline, "no front started"
        time.sleep(0.1)


def socket_of(folder: Path) -> Path:
    [sock] = folder.glob("front-*.sock")
    return sock


def in_process(*args: str, **given: object) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CHITIN_FRONT="off")
    return chitin(*args, env=env, **given)  # type: ignore[arg-type]


def same(*args: str, **given: object) -> subprocess.CompletedProcess[str]:
    """Run through the front and in-process: the same output and exit code."""
    served = chitin(*args, **given)  # type: ignore[arg-type]
    alone = in_process(*args, **given)
    assert (served.returncode, served.stdout, served.stderr) == (
        alone.returncode,
        alone.stdout,
        alone.stderr,
    ), args
    return served


def _unsuffixed(text: str) -> str:
    """Without the random end of a new insight's id."""
    return re.sub(r"-[a-z0-9]{4}\b", "-", text)


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def workers(front_pid: int) -> list[int]:
    """The workers of a front that took a command: its supervisors' children, less the
    spare's (forked ahead of need, in the front's cwd, /)."""
    return [
        pid
        for supervisor in children(front_pid)
        for pid in children(supervisor)
        if _cwd(pid) != "/"
    ]


def _cwd(pid: int) -> str | None:
    """A process's cwd; None once it has ended (a worker may end as it is looked at)."""
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def waiting_import(store: Path) -> subprocess.Popen[bytes]:
    """A served ``import -`` that waits on its stdin: a command held in its worker."""
    return subprocess.Popen(
        [chitin_program(), "--store", str(store), "import", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def until(condition: object, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


# ------------------------------------------------------------------ the same outcome


def test_commands_give_through_the_front_what_they_give_in_process(
    folder: Path, tmp_path: Path
) -> None:
    started(folder)
    store, twin = str(tmp_path / "store"), str(tmp_path / "twin")
    claim = ["--type", "skill", "--claim", "Run the tests first", "--confidence", "0.7"]
    for args in (["init"], ["contribute", *claim]):
        served, alone = chitin("--store", store, *args), in_process("--store", twin, *args)
        assert served.returncode == alone.returncode == 0
        assert _unsuffixed(served.stdout.replace(store, twin)) == _unsuffixed(alone.stdout)
    added = chitin(
        "--store", store, "contribute", "--type", "skill", "--format", "json",
        "--claim", "Run the tests before pushing a branch", "--confidence", "0.8",
    )  # fmt: skip
    identifier = json.loads(added.stdout)["insight"]["id"]
    in_process("--store", store, "archive", identifier)  # the same store, as it was
    in_process("--store", store, "unarchive", identifier)
    for args in (
        ["--store", store, "get", identifier],
        ["--store", store, "get", identifier[:6], "--format", "json"],
        ["--store", store, "list"],
        ["--store", store, "list", "--format", "json"],
        ["--store", store, "retrieve", "--query", "push a branch"],
        ["--store", store, "stats"],
        ["--store", store, "get", "no-such-insight"],
        ["--store", store, "list", "--min-confidence", "nine"],
        ["--store", store, "retreive"],
        ["--help"],
        ["list", "--help"],
        ["--version"],
        [],
    ):
        same(*args)
    front_pid = started(folder)  # every worker ends with its command (its closes after)
    until(lambda: workers(front_pid) == [], "the workers ended")


def test_a_served_command_takes_its_stdin_cwd_and_environment(folder: Path, tmp_path: Path) -> None:
    pid = started(folder)
    store = tmp_path / "store"
    in_process("--store", str(store), "init")
    given = '{"type": "skill", "claim": "Keep release notes short", "confidence": 0.7}'
    env = dict(os.environ, CHITIN_STORE=str(store))
    added = chitin("contribute", "--json", "--format", "json", stdin=given, env=env)
    assert added.returncode == 0, added.stderr
    found = chitin("list", cwd=store)  # the store found from the cwd
    assert "Keep release notes short" in found.stdout
    elsewhere = chitin("list", cwd=tmp_path, env=dict(os.environ, CHITIN_STORE=str(store)))
    assert elsewhere.stdout == found.stdout
    assert peer_pid(socket_of(folder)) == pid  # the one front served them all


def test_a_served_command_has_closed_its_caches_when_its_client_returns(
    folder: Path, tmp_path: Path
) -> None:
    """The worker closes the cache before it tells its exit code: when the client
    returns, no log is left open in .chitin/, so a script that removes or copies it
    right after the command (a test suite's "delete the cache" step) races nothing."""
    pid = started(folder)
    store = tmp_path / "store"
    env = dict(os.environ, CHITIN_BACKGROUND_EMBED="off")
    in_process("--store", str(store), "init")
    for claim in ("Close first", "Answer after"):
        args = ["--type", "skill", "--claim", f"{claim}, then the rest", "--confidence", "0.7"]
        added = chitin("--store", str(store), "contribute", *args, env=env)
        assert (added.returncode, added.stderr) == (0, ""), added.stderr
        assert added.stdout.startswith("✓ Contributed skill insight")
        assert [p.name for p in (store / ".chitin").rglob("*-wal")] == []
        listed = chitin("--store", str(store), "list", env=env)
        assert [p.name for p in (store / ".chitin").rglob("*-wal")] == []
        shutil.rmtree(store / ".chitin")  # what the next command rebuilds
        assert claim in listed.stdout
    until(lambda: workers(pid) == [], "the workers ended")
    listed = chitin("--store", str(store), "list", "--format", "json", env=env)
    assert len(json.loads(listed.stdout)) == 2


def test_the_client_s_signals_reach_the_worker_and_its_death_kills_it(
    folder: Path, tmp_path: Path
) -> None:
    pid = started(folder)
    for sent, returned in ((signal.SIGTERM, -signal.SIGTERM), (signal.SIGKILL, None)):
        client = waiting_import(tmp_path / "s")
        until(lambda: workers(pid) != [], "the command never reached a worker")
        [served] = workers(pid)
        client.send_signal(sent)
        code = client.wait(timeout=WAIT)
        assert returned is None or code == returned
        until(lambda served=served: not alive(served), "the worker outlived its client")
        assert client.stdin is not None
        client.stdin.close()


def test_a_worker_killed_outright_ends_its_client_alike_without_a_traceback(
    folder: Path, tmp_path: Path
) -> None:
    """SIGKILL of the worker (the OOM killer's, or a person's `kill -9`): the client
    ends by the same signal, as an in-process chitin would, and prints nothing. Before,
    it could not reset SIGKILL's handler and printed a traceback of OSError."""
    pid = started(folder)
    client = subprocess.Popen(
        [chitin_program(), "--store", str(tmp_path / "s"), "import", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    until(lambda: workers(pid) != [], "the command never reached a worker")
    [served] = workers(pid)
    os.kill(served, signal.SIGKILL)
    _, err = client.communicate(timeout=WAIT)
    assert "Traceback" not in err.decode(), err.decode()
    assert client.returncode == -signal.SIGKILL


def test_a_signal_to_the_client_reaches_chitin_not_the_git_it_runs(
    folder: Path, tmp_path: Path
) -> None:
    """`kill PID` of an in-process chitin reaches chitin alone, whose write guard then
    lets the git it runs finish (store/interrupts.py). Sent by the front to the worker's
    whole group, it reached git too, which could die holding .git/index.lock after the
    worker undid its write and removed its journal, so that no later command cleared
    the lock and every write failed (bench/interrupt.py with the front on, 1 in 200)."""
    store, mark = tmp_path / "s", tmp_path / "mark"
    assert chitin("--store", str(store), "init").returncode == 0
    hook = store / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        "#!/bin/sh\n"
        f"trap 'touch {mark}.term; exit 1' TERM\n"
        f"touch {mark}.started\n"
        "sleep 2 & wait\n"  # a trapped signal ends `wait` at once, not `sleep`
    )
    hook.chmod(0o755)
    pid = started(folder)
    claim = ("--claim", "Read the whole diff before approving it", "--confidence", "0.6")
    client = subprocess.Popen(
        [chitin_program(), "--store", str(store), "contribute", "--type", "skill", *claim],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    until(lambda: Path(f"{mark}.started").exists(), "git's pre-commit hook never ran")
    assert workers(pid) != []  # served by the front
    client.send_signal(signal.SIGTERM)
    _, stderr = client.communicate(timeout=WAIT)
    assert not Path(f"{mark}.term").exists(), "the signal reached git's hook"
    assert (client.returncode, commit_count(store)) == (0, 2), stderr
    assert "SIGTERM arrived after the change was committed" in stderr
    assert not (store / ".git" / "index.lock").exists()


def test_ctrl_c_while_the_worker_takes_on_the_client_says_nothing_was_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The client forwards a signal as soon as it sent its go, and the worker may still
    be taking on the client's fds and environment. A Ctrl-C then is one before the
    command began: as console ``main`` says it in-process, one line and exit 130, not
    a traceback and exit 1 (bench/interrupt.py with the front on: 2 in 200)."""
    from chitin.front import worker

    def interrupted(env: object, umask: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(worker, "_take_environment", interrupted)
    outcome = forked_worker({"env": {}, "umask": 0o22}, give_go=True)
    assert outcome == (130, "Interrupted: nothing was changed.\n")


def forked_worker(
    request: dict[str, object],
    give_go: bool,
    before: Callable[[], None] = lambda: None,
    terminal: bool = False,
) -> tuple[int, str]:
    """A front worker forked as the supervisor forks it, running ``request`` after
    ``before()`` in the child: its exit code and what it wrote to the client's stderr
    (a pseudo-terminal if ``terminal``, else a pipe). ``give_go`` false: the go pipe is
    closed unwritten, as by a client that left."""
    from chitin.front import worker

    err_read, err_write = pty.openpty() if terminal else os.pipe()
    wait, go = os.pipe()
    heard, told = os.pipe()
    here, there = socket.socketpair()
    if not give_go:
        os.close(go)
    parent = os.getpid()
    child = os.fork()
    if child == 0:  # pragma: no cover - the forked worker, which never returns
        before()
        worker.run(there, parent, (wait, told))
    nulls = [os.open(os.devnull, os.O_RDWR) for _ in range(2)]
    cwd = os.open(".", os.O_PATH | os.O_DIRECTORY)
    front.send_frame(here, request, [*nulls, err_write, cwd])  # as the supervisor passes it
    for fd in (*nulls, cwd):
        os.close(fd)
    os.close(err_write)
    os.close(told)
    said = b""
    with contextlib.suppress(OSError):  # a terminal's EIO: its last writer is gone
        while chunk := os.read(err_read, 1024):
            said += chunk
    os.close(err_read)
    stderr = said.decode()
    _, status = os.waitpid(child, 0)
    for end in (here, there):
        end.close()
    for fd in (wait, heard, *([go] if give_go else [])):
        os.close(fd)
    return os.waitstatus_to_exitcode(status), stderr


READ = {"x86_64": 0, "aarch64": 63}  # the read system call's number


def reading(pid: int, fd: int) -> bool:
    """Whether process ``pid`` (ours) is blocked reading ``fd`` (no clock: the kernel
    says which call it waits in)."""
    with contextlib.suppress(OSError):
        call = Path(f"/proc/{pid}/syscall").read_text().split()
        return call[:2] == [str(READ[os.uname().machine]), hex(fd)]
    return False


def test_a_worker_ends_only_once_its_outcome_is_sent() -> None:
    """The worker tells its exit code, then waits until its supervisor closes the go
    pipe (the outcome sent on) before it ends: its teardown, which ran before the
    supervisor's send where both shared a core, is not in the client's wait."""
    from chitin.front import worker

    wait, go = os.pipe()
    heard, told = os.pipe()
    here, there = socket.socketpair()
    parent = os.getpid()
    child = os.fork()
    if child == 0:  # pragma: no cover - the forked worker, which never returns
        atexit._clear()  # pytest's, not the command's
        for fd in (go, heard, here.fileno()):  # the supervisor's ends, as it forks it
            os.close(fd)
        worker.run(there, parent, (wait, told))
    os.close(told)
    nulls = [os.open(os.devnull, os.O_RDWR) for _ in range(3)]
    cwd = os.open(".", os.O_PATH | os.O_DIRECTORY)
    streams = [("utf-8", "strict", False, False, False)] * 3
    request = {"env": dict(os.environb), "umask": 0o22, "streams": streams,
               "argv": ["chitin", "--version"]}  # fmt: skip
    front.send_frame(here, request, [*nulls, cwd])
    for fd in (*nulls, cwd):
        os.close(fd)
    os.write(go, b"g")
    assert os.read(heard, 1) == b"\0"  # exit 0, told
    until(lambda: reading(child, wait) or os.waitpid(child, os.WNOHANG) != (0, 0), "")
    assert reading(child, wait)  # not ended: it waits for the end of the go pipe
    os.close(go)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    for fd in (wait, heard):
        os.close(fd)
    for end in (here, there):
        end.close()


def test_ctrl_c_pending_from_the_fork_says_nothing_was_changed() -> None:
    """The supervisor forks the worker with the forwarded signals blocked (one landing
    in the worker's first bytecodes, before run's try, ended it with exit 1 and no word:
    stress48, 2 in ~1,000 early SIGINTs). One that came meanwhile is raised once the
    worker has the client's stderr: one line and exit 130."""

    def pending_ctrl_c() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])  # as _fork_blocked
        os.kill(os.getpid(), signal.SIGINT)

    streams = [("utf-8", "strict", False, False, False)] * 3
    request = {"env": {}, "umask": 0o22, "streams": streams, "argv": ["chitin", "list"]}
    # no go: a worker that went on would leave with exit 1 and no word
    outcome = forked_worker(request, give_go=False, before=pending_ctrl_c)
    assert outcome == (130, "Interrupted: nothing was changed.\n")
    # On a terminal, below its echoed "^C", as in-process (fix123)
    outcome = forked_worker(request, give_go=False, before=pending_ctrl_c, terminal=True)
    assert outcome == (130, "\r\nInterrupted: nothing was changed.\r\n")


# ------------------------------------------------------------------ never needed


def _answering(path: Path, answer: bytes | None) -> threading.Thread:
    """A socket at ``path`` that reads a request and sends ``answer`` (None: nothing)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def serve() -> None:
        with listener:
            connection, _ = listener.accept()
            with connection:
                connection.recv(1 << 20)
                if answer is not None:
                    connection.sendall(answer)
                time.sleep(2 * front.CONNECT_SECONDS)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def _framed(message: object) -> bytes:
    data = marshal.dumps(message)
    return len(data).to_bytes(4, "big") + data


@pytest.mark.parametrize(
    "answer",
    [None, b"\x00\x00\x00\x04junk", _framed({"key": "another", "pid": 1}), _framed([1])],
    ids=["silent", "garbled", "another-key", "not-a-dict"],
)
def test_a_front_that_does_not_start_the_worker_is_not_needed(
    folder: Path, tmp_path: Path, answer: bytes | None
) -> None:
    started(folder)
    sock = socket_of(folder)
    pid = peer_pid(sock)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # and its lock is ours: no other front starts meanwhile
    with open(sock.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        thread = _answering(sock, answer)
        same("--store", str(tmp_path / "none"), "list")
        thread.join(timeout=WAIT)


def test_a_killed_front_is_replaced_and_the_command_runs_meanwhile(
    folder: Path, tmp_path: Path
) -> None:
    pid = started(folder)
    os.kill(pid, signal.SIGKILL)
    until(lambda: not alive(pid), "the front did not die")
    same("--store", str(tmp_path / "s"), "stats")  # its socket refuses: in-process
    assert started(folder) != pid


def spare(front_pid: int) -> tuple[int, int] | None:
    """The front's spare: a supervisor and its worker forked ahead of need, both still
    in the front's cwd (/), which a supervisor leaves for its client's."""
    for supervisor in children(front_pid):
        with contextlib.suppress(OSError):
            kids = children(supervisor)
            cwds = {os.readlink(f"/proc/{pid}/cwd") for pid in (supervisor, *kids)}
            if len(kids) == 1 and cwds == {"/"}:
                return supervisor, kids[0]
    return None


def with_spare(folder: Path, env: dict[str, str] | None = None) -> tuple[int, tuple[int, int]]:
    """Start a front and find it and its spare without connecting to it (``started``'s
    probe is a connection: handed to the spare, which then ends, it left the test
    holding a spare that was no longer one)."""
    chitin("--version", env=env)  # starts one
    found: list[tuple[int, tuple[int, int]]] = []

    def look() -> bool:
        fronts = _fronts(folder)
        ahead = spare(fronts[0]) if len(fronts) == 1 else None
        found[:] = [] if ahead is None else [(fronts[0], ahead)]
        return bool(found)

    until(look, "no front with a spare")
    return found[0]


def _fronts(folder: Path) -> list[int]:
    """The fronts of ``folder``: processes of the front's argv whose parent is not one."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            line = (entry / "cmdline").read_bytes()
            if b"chitin.front.server" in line and os.fsencode(folder) in line:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return [pid for pid, parent in parents.items() if parent not in parents]


def test_the_worker_is_forked_before_its_command_comes(folder: Path, tmp_path: Path) -> None:
    """Neither fork is in the client's wait (docs/design.md §9n): the command runs in
    the spare's worker, forked before the client connected, and a new spare follows."""
    pid, ahead = with_spare(folder)
    client = waiting_import(tmp_path / "s")
    until(lambda: workers(pid) != [], "the command never reached a worker")
    assert workers(pid) == [ahead[1]]
    assert os.readlink(f"/proc/{ahead[1]}/cwd") == os.getcwd()  # the client's
    assert client.stdin is not None
    client.stdin.close()
    client.wait(timeout=WAIT)
    until(lambda: spare(pid) not in (None, ahead), "no next spare")


def test_a_front_that_ends_takes_its_spare_with_it(folder: Path) -> None:
    """No process is left behind: an idle front ends its spare, and a killed front's
    spare sees its channel end and leaves, its worker with it."""
    for kill in (False, True):
        env = dict(os.environ, CHITIN_FRONT_IDLE="60" if kill else "3")
        pid, ahead = with_spare(folder, env)
        if kill:
            os.kill(pid, signal.SIGKILL)
        until(lambda pid=pid: not alive(pid), "the front did not end")
        for left in ahead:
            until(lambda left=left: not alive(left), "the spare outlived its front")


def test_a_front_keeps_none_of_its_starter_s_other_fds(folder: Path) -> None:
    """A client that starts the front passes it no fd but 0-2: a pipe its caller gave
    it (a harness waiting for the pipe's end) is not held for the front's life."""
    read, write = os.pipe()
    os.set_inheritable(write, True)
    try:
        subprocess.run(
            [chitin_program(), "--version"],
            pass_fds=(write,),
            capture_output=True,
            timeout=WAIT,
        )
        os.close(write)
        pid = started(folder)
        until(lambda: spare(pid) is not None, "no spare forked")
        os.set_blocking(read, False)  # held by any process: BlockingIOError
        assert os.read(read, 1) == b""  # the end: no front, spare or worker holds it
    finally:
        os.close(read)


def test_an_idle_front_leaves_no_file_behind(folder: Path) -> None:
    """A front of a key that will not come back (an edited install) removes its socket
    and its lock when it leaves, so the user's folder does not fill up with them."""
    env = dict(os.environ, CHITIN_FRONT_IDLE="0.5")
    pid = started(folder, env)
    until(lambda: not alive(pid), "the idle front did not leave")
    assert not list(folder.glob("front-*.sock")) and not list(folder.glob("front-*.lock"))


def test_another_key_is_another_front_with_its_own_stdio(folder: Path, tmp_path: Path) -> None:
    first = started(folder)
    env = dict(os.environ, PYTHONIOENCODING="ascii:backslashreplace")
    assert front.front_key(env) != front.front_key(os.environ)
    second = started(folder, env, besides=first)
    assert second != first and alive(first)
    store = str(tmp_path / "store")
    in_process("--store", store, "init")
    in_process(
        "--store",
        store,
        "contribute",
        "--type",
        "skill",
        "--claim",
        "Café first",
        "--confidence",
        "0.6",
    )
    shown = chitin("--store", store, "list", env=env)
    assert "Caf\\xe9 first" in shown.stdout
    assert shown.stdout == chitin("--store", store, "list", env=dict(env, CHITIN_FRONT="0")).stdout


def test_an_edit_to_a_source_file_gives_another_key(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    module = package / "sub" / "module.py"
    module.write_text("A = 1\n")
    (package / "__init__.py").write_text("")
    before = front.source_signature(str(package))
    module.write_text("A = 2\n")  # the same size; another mtime
    os.utime(module, ns=(1, 1))
    assert front.source_signature(str(package)) != before
    (package / "sub" / "added.py").write_text("")
    (package / "table.txt").write_text("a table the front reads ahead")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"")
    assert len(front.source_signature(str(package))) == 4


def test_what_must_run_in_process(folder: Path) -> None:
    assert front.runs_in_process(["sync"], False)
    assert front.runs_in_process(["--store", "s", "embed", "--background-worker"], False)
    assert front.runs_in_process(["--store", "x", "init", "--remote", "u"], False)
    assert not front.runs_in_process(["list"], True)
    assert front.runs_in_process(["import", "-"], True)
    assert front.runs_in_process(["mcp"], True)
    assert not front.runs_in_process(["mcp"], False)


def test_the_switches(monkeypatch: pytest.MonkeyPatch) -> None:
    for env, on in (
        ({"CHITIN_FRONT": "0"}, False),
        ({"CHITIN_RESIDENT": "off"}, False),
        ({"CHITIN_RESIDENT": "off", "CHITIN_FRONT": "on"}, True),
        ({}, True),
    ):
        assert (front.settings(env) is not None) == on, env


def test_a_relative_resident_dir_is_not_made_in_each_command_s_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taken as it is, "run/chitin" was a folder in every folder a command ran in (the
    client makes it), and the front, whose cwd is /, listened at /run/chitin: never
    found, so every command ran in-process and started another. A relative value is
    ignored, as XDG ignores a relative $XDG_RUNTIME_DIR."""
    from chitin.residency import user_folder_name

    runtime = tmp_path / "runtime"
    runtime.mkdir()
    env = {"CHITIN_RESIDENT_DIR": "run/chitin", "XDG_RUNTIME_DIR": str(runtime)}
    assert user_folder_name(env) == str(runtime / "chitin")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("CHITIN_FRONT", "on")
    monkeypatch.setenv("CHITIN_FRONT_IDLE", "5")
    monkeypatch.setenv("CHITIN_RESIDENT_DIR", "run/chitin")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    try:
        assert chitin("--version", cwd=project).returncode == 0
        assert not (project / "run").exists()
    finally:
        started_there = runtime / "chitin"
        for sock in started_there.glob("*.sock") if started_there.is_dir() else ():
            pid = peer_pid(sock)
            if pid is not None:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


def test_only_the_chitin_program_is_served() -> None:
    """Another program that calls console main (a test that patched a module first, a
    wrapper) runs it itself: a worker would run the front's unpatched modules."""
    script, module, patched = (types.ModuleType("__main__") for _ in range(3))
    script.__file__ = "/usr/local/bin/chitin"
    module.__spec__ = importlib.util.find_spec("chitin.__main__")
    patched.__file__ = "/home/me/bin/my-wrapper"
    assert front.console_script(script) and front.console_script(module)
    assert not front.console_script(patched)
    assert not front.console_script(types.ModuleType("__main__"))  # python -c


def test_a_worker_whose_client_gave_up_before_its_go_never_runs(
    folder: Path, tmp_path: Path
) -> None:
    """The client that timed out waiting for the acknowledgement runs the command
    itself: the worker forked for it must not run it too (a write, twice)."""
    started(folder)
    sock = socket_of(folder)
    store = tmp_path / "store"
    in_process("--store", str(store), "init")
    commits = commit_count(store)
    argv = [chitin_program(), "--store", str(store), "contribute", "--type", "skill",
            "--claim", "Never written twice", "--confidence", "0.5"]  # fmt: skip
    stream = ("utf-8", "strict", False, False, False)
    request = {
        "protocol": front.PROTOCOL, "key": sock.stem.removeprefix("front-"), "argv": argv,
        "cwd": str(tmp_path), "env": dict(os.environb), "umask": 0o022, "streams": [stream] * 3,
    }  # fmt: skip
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(sock))
        front.send_frame(client, request, (0, 1, 2))
        answer = front.receive_frame(client, time.monotonic() + WAIT)
        served = answer["pid"]
    until(lambda: not alive(served), "the worker outlived its client")
    assert commit_count(store) == commits


def test_a_client_that_names_no_locale_is_served(folder: Path) -> None:
    """Without LANG or LC_*, Python coerces the C locale (LC_CTYPE=C.UTF-8 in its
    environment) and runs in UTF-8 mode: the front it starts must run so too, or its key
    differs and it never serves (a `.failed` marker, every command in-process)."""
    env = {k: v for k, v in os.environ.items() if k != "LANG" and not k.startswith("LC_")}
    env.pop("PYTHONUTF8", None)
    env.pop("PYTHONCOERCECLOCALE", None)
    assert started(folder, env)
    assert not list(folder.glob("front-*.failed"))
    assert chitin("--version", env=env).stdout == in_process("--version").stdout


def test_a_path_to_one_of_the_client_s_own_descriptors_runs_in_process(
    folder: Path, tmp_path: Path
) -> None:
    """`chitin import <(chitin export)` names /dev/fd/63, a descriptor of the client's
    that the front is not given (it passes stdin, stdout and stderr): in a worker the
    path named nothing ('cannot read /dev/fd/63: No such file or directory')."""
    assert front.runs_in_process(["import", "/dev/fd/63"], False)
    assert front.runs_in_process(["render", "--template=/proc/self/fd/5"], False)
    assert not front.runs_in_process(["import", "/dev/stdin"], False)
    started(folder)
    store = tmp_path / "s"
    assert in_process("--store", str(store), "init").returncode == 0
    reader, writer = os.pipe()
    os.write(
        writer, json.dumps([{"type": "skill", "claim": "Piped in", "confidence": 0.5}]).encode()
    )
    os.close(writer)
    try:
        result = subprocess.run(
            [chitin_program(), "--store", str(store), "import", f"/dev/fd/{reader}"],
            capture_output=True, text=True, pass_fds=(reader,), timeout=WAIT,
        )  # fmt: skip
    finally:
        os.close(reader)
    assert result.returncode == 0, result.stderr
    listed = in_process("--store", str(store), "list", "--format", "json")
    assert [i["claim"] for i in json.loads(listed.stdout)] == ["Piped in"]


def test_the_fronts_a_test_started_are_ended_after_it(tmp_path: Path) -> None:
    """A front idles for minutes after its last command: the tests that started one
    (with their tmp_path's run folder, conftest's) left it idling after the suite, on
    a CI machine too. conftest's tidy fixture ends those of each test."""
    from conftest import end_servers_under, servers_under

    run = Path(os.environ["CHITIN_RESIDENT_DIR"])
    assert run.is_relative_to(tmp_path)
    env = {**os.environ, "CHITIN_FRONT": "on", "CHITIN_FRONT_IDLE": "600"}
    pid = started(run, env)
    assert pid in servers_under(tmp_path)  # with, for a moment, a command's supervisor
    assert pid in end_servers_under(tmp_path)
    assert not alive(pid) and servers_under(tmp_path) == []


def test_a_front_starts_and_serves_in_a_folder_too_long_for_a_socket_s_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket's path holds 108 bytes, and the user's folder of the moment can be
    longer ($XDG_RUNTIME_DIR, $CHITIN_RESIDENT_DIR, a test's tmp_path under a long
    $TMPDIR). The front then never started, silently (every command ran in-process,
    cold); it binds, and its clients connect, through a descriptor of the folder."""
    run = tmp_path / ("long-folder-" * 8) / "run"
    assert len(os.fsencode(run / f"front-{front.front_key(os.environ)}.sock")) > 108
    monkeypatch.setenv("CHITIN_FRONT", "on")
    monkeypatch.setenv("CHITIN_RESIDENT_DIR", str(run))
    monkeypatch.setenv("CHITIN_FRONT_IDLE", "60")
    pid = started(run)
    store = tmp_path / "store"
    assert in_process("--store", str(store), "init").returncode == 0
    client = waiting_import(store)
    until(lambda: workers(pid) != [], "the command was not served by the front")
    assert client.stdin is not None
    client.stdin.close()  # nothing to import: as in-process
    alone = in_process("--store", str(store), "import", "-")
    assert client.wait(timeout=WAIT) == alone.returncode
    assert peer_pid(socket_of(run)) == pid
