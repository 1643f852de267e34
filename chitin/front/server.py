"""The resident CLI front: one process per user and key that has chitin imported and
forks a worker per command (chitin/front/__init__.py is its client, and says why).

    python -m chitin.front.server --socket PATH --key KEY --idle S --path SYS_PATH

Started detached by the first client that found none. It takes the client's
``sys.path``, imports the program (``PRELOAD``), then checks that its own key (the same
``front_key`` the client computed) is the one it was started for: anything else (other
flags, a file edited while it imported) and it leaves without serving. One instance:
an ``flock`` on ``.lock`` held for its whole life. It starts no thread and loads no
model (a fork copies only the calling thread: a lock another thread held would stay
held in the worker); the resident embedder stays a process of its own.

Each connection gets a supervisor, forked from the front: it reads the request, forks
the worker (front/worker.py), acknowledges with the worker's pid, then watches two
things with ``poll``: the connection (a signal to forward; its end: the client died,
and the worker is killed) and the worker's pidfd (its end: the status goes back to the
client). The supervisor is the worker's parent, so it can signal it without a pid-reuse
race, and the front's own loop stays a plain accept. The front exits after ``--idle``
seconds with no command and none running, removing its socket.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gc
import importlib
import marshal
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any

from chitin import front
from chitin.front.worker import run as become_the_client
from chitin.residency import peer_uid, private, receive_exactly, release_lock, take_lock

REQUEST_SECONDS = 5.0  # a client that sends nothing for this long is let go
# What the front imports, so that no worker does: the CLI and what its commands load.
# Not numpy, onnxruntime, tokenizers or httpx: heavy, rarely needed, and some start
# threads when loaded (a fork would copy their locks, not their threads).
PRELOAD = (
    "chitin.cli",
    "chitin.cli.group",
    "chitin.cli.lean",
    "chitin.cli.show",
    "chitin.cli.recall",
    "chitin.cli.write",
    "chitin.cli.read",
    "chitin.cli.session_hook",
    "chitin.console.ahead",
    "chitin.core.facade",
    "chitin.core.session",
    "chitin.core.lifecycle",
    "chitin.format.frontmatter",
    "chitin.index.sync",
    "chitin.retrieval.judgement",
    "chitin.retrieval.stance",
    "chitin.retrieval.synonyms",
    "chitin.search.door",
    "chitin.store.git",
    # The write path's own (loaded at a writer's first write, store/repository.py
    # ``_writer``), git's processes and the door's resident embedder: ~6-8 ms of every
    # served contribute (docs/design.md §9k).
    "chitin.store.writing",
    "chitin.store.git_identity",
    "chitin.providers.local",
    "chitin.providers.resident",
    "subprocess",
    "sqlite3",
    "yaml",
)


# Tables the commands parse at their first use, read now (module caches, pure data of
# the package's files, which the key covers).
WARM = (
    ("chitin.retrieval.synonyms", "canonical"),
    ("chitin.retrieval.synonyms", "phrases"),
    ("chitin.retrieval.synonym_lookup", "lexicon"),
    ("chitin.retrieval.stance", "_lexicon"),
)


def preload(names: Sequence[str]) -> None:
    """Import what the commands need, and read the tables they parse; what fails here is
    the worker's to do (or to fail on, as in-process)."""
    for name in names:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    for module, function in WARM:
        with contextlib.suppress(Exception):
            getattr(importlib.import_module(module), function)()


class Front:
    def __init__(self, path: str, idle: float) -> None:
        self.path = path
        self.idle = idle
        self.last = time.monotonic()
        self.supervisors: set[int] = set()
        self.listener: Any = None
        self.bound = 0

    def bind(self) -> None:
        """Take the socket's path (a file left by a killed front is stale: we hold the
        lock), readable and writable by the user alone."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        previous = os.umask(0o177)
        try:
            listener.bind(self.path)
        finally:
            os.umask(previous)
        listener.listen(64)
        self.listener = listener
        self.bound = os.stat(self.path).st_ino

    def serve(self, held: int) -> None:
        """Accept until ``idle`` seconds pass with no command and none running."""
        while True:
            self.reap()
            if self.supervisors:
                self.last = time.monotonic()
            left = self.idle - (time.monotonic() - self.last)
            if left <= 0:
                return
            self.listener.settimeout(min(left, 1.0))  # and look at the running ones
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            except InterruptedError:  # pragma: no cover - PEP 475 retries
                continue
            self.last = time.monotonic()
            with connection:
                self.hand_over(connection, held)

    def hand_over(self, connection: Any, held: int) -> None:
        if peer_uid(connection) not in (None, os.getuid()):
            return
        try:
            pid = os.fork()
        except OSError:
            return  # the client's acknowledgement never comes: it runs the command itself
        if pid == 0:  # pragma: no cover - the supervisor, measured through real processes
            code = 1
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                self.listener.close()
                os.close(held)  # the front's lock is the front's alone
                code = supervise(connection)
            finally:
                os._exit(code)
        self.supervisors.add(pid)

    def reap(self) -> None:
        for pid in list(self.supervisors):
            with contextlib.suppress(ChildProcessError):
                done, _ = os.waitpid(pid, os.WNOHANG)
                if not done:
                    continue
            self.supervisors.discard(pid)

    def close(self) -> None:
        """Remove the socket if it is still ours (not a successor's)."""
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == self.bound:
                os.unlink(self.path)
        if self.listener is not None:
            self.listener.close()


# ------------------------------------------------------------------ the supervisor


def supervise(connection: Any) -> int:  # pragma: no cover - a forked child
    """Read the request, fork the worker, and relay until it ends. The worker waits for
    the client's go, sent once the client has read the acknowledgement: a client that
    gave up waiting runs the command itself, and the worker, which never began, dies."""
    request, fds = _request(connection)
    if request is None:
        return 1
    supervisor = os.getpid()
    try:
        os.chdir(request["cwd"])
        wait, go = os.pipe()
        heard, told = os.pipe()
        worker = _fork_blocked()
    except OSError:
        for fd in fds:
            os.close(fd)
        return 1  # no acknowledgement: the client runs the command itself
    if worker == 0:
        os.close(go)
        os.close(heard)
        become_the_client(request, fds, connection, supervisor, (wait, told))
    with contextlib.suppress(OSError):  # as the worker does: whichever runs first
        os.setpgid(worker, worker)
    os.close(wait)
    os.close(told)
    for fd in fds:
        os.close(fd)
    try:
        pidfd = os.pidfd_open(worker)
        front.send_frame(connection, {"key": request["key"], "pid": worker})
        answer = front.receive_frame(connection, time.monotonic() + REQUEST_SECONDS)
        if answer.get("go") is not True:
            raise ValueError("no go")
        os.write(go, b"g")
    except (OSError, ValueError, EOFError, TypeError):
        os.close(go)  # the worker reads the end of its pipe, and leaves
        _kill(worker, signal.SIGKILL)
        os.waitpid(worker, 0)
        return 1
    os.close(go)
    return _relay(connection, worker, pidfd, heard)


def _fork_blocked() -> int:  # pragma: no cover - a forked child
    """Fork the worker with the forwarded signals blocked: the client forwards one as
    soon as it sent its go, and landing in the worker's first bytecodes (before
    worker.run can say that nothing began) it ended the worker through this process's
    exit, 1 and no word (stress48: 2 in ~1,000 SIGINTs early in a contribute). The
    worker unblocks them once the client's stderr and handlers are its own."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, front.FORWARDED)
    try:
        child = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        raise
    if child:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return child


def _request(connection: Any) -> tuple[dict[str, Any] | None, list[int]]:  # pragma: no cover
    fds: list[int] = []
    try:
        connection.settimeout(REQUEST_SECONDS)
        head, fds, _, _ = socket.recv_fds(connection, 4, 3)
        if len(head) < 4 or len(fds) != 3:
            raise ValueError("no request")
        deadline = time.monotonic() + REQUEST_SECONDS
        size = int.from_bytes(head, "big")
        if size > front.MAX_FRAME:
            raise ValueError("a frame too large")
        request = marshal.loads(receive_exactly(connection, size, deadline))
        if not _sound(request):
            raise ValueError("a malformed request")
    except (OSError, ValueError, EOFError, TypeError):
        for fd in fds:
            os.close(fd)
        return None, []
    return request, fds


def _sound(request: object) -> bool:
    fields = {"protocol": int, "key": str, "argv": list, "cwd": str, "env": dict, "umask": int}
    return (
        isinstance(request, dict)
        and all(isinstance(request.get(name), kind) for name, kind in fields.items())
        and request["protocol"] == front.PROTOCOL
        and request["key"] == KEY[0]
        and isinstance(request.get("streams"), list)
        and len(request["streams"]) == 3
    )


def _relay(connection: Any, worker: int, pidfd: int, heard: int) -> int:  # pragma: no cover
    """Forward the client's signals to the worker until it ends; kill its whole group
    if the client goes away; then send its status. A worker that told its exit code on
    ``heard`` first (worker.answered) has it sent at once, and is waited for alone: its
    client may end meanwhile, and what the worker does then (closes) is not killed."""
    watch = select.poll()
    watch.register(connection.fileno(), select.POLLIN)
    watch.register(pidfd, select.POLLIN)
    watch.register(heard, select.POLLIN)
    connection.settimeout(REQUEST_SECONDS)
    while True:
        ready = dict(watch.poll())
        if pidfd in ready:
            break
        if heard in ready:
            code = os.read(heard, 1)
            watch.unregister(heard)
            if code:
                with contextlib.suppress(OSError):
                    front.send_frame(connection, {"exit": code[0]})
                os.waitpid(worker, 0)
                return 0
            continue
        if connection.fileno() in ready:
            try:
                message = front.receive_frame(connection, time.monotonic() + REQUEST_SECONDS)
            except (OSError, ValueError, EOFError, TypeError):  # the client is gone
                _kill(worker, signal.SIGKILL)
                break
            number = message.get("signal")
            if isinstance(number, int) and number in front.FORWARDED:
                # To the worker alone, as `kill PID` reaches an in-process chitin alone:
                # its write guard lets the git it runs finish. Sent to the group, git
                # died holding .git/index.lock after the write was undone (bench/
                # interrupt.py, front on). Our unreaped child: never a reused pid.
                with contextlib.suppress(OSError):
                    os.kill(worker, number)
    _, status = os.waitpid(worker, 0)
    outcome = (
        {"signal": os.WTERMSIG(status)}
        if os.WIFSIGNALED(status)
        else {"exit": os.waitstatus_to_exitcode(status)}
    )
    with contextlib.suppress(OSError):
        front.send_frame(connection, outcome)
    return 0


def _kill(worker: int, number: int) -> None:
    """The worker leads its own process group (git's processes are in it): a client
    gone (killed) takes all of them with it, as a SIGKILL of its group would."""
    try:
        os.killpg(worker, number)
    except OSError:  # not its group yet: the worker itself, our child, so never a reused pid
        with contextlib.suppress(OSError):
            os.kill(worker, number)


# ------------------------------------------------------------------ start-up

KEY = [""]  # the key this front serves (set once, before any fork)


def run(path: str, key: str, idle: float, client_path: list[str]) -> int:
    if not private(os.path.dirname(path), True):
        return 1
    lock = path[: -len(".sock")] + ".lock"
    held = take_lock(lock)
    if held is None:
        return 0  # another one runs, or is starting
    try:
        return _serve(path, key, idle, client_path, held)
    finally:
        release_lock(lock, held)


def _serve(path: str, key: str, idle: float, client_path: list[str], held: int) -> int:
    sys.path[:] = client_path
    before = front.front_key(os.environ)
    preload(PRELOAD)
    if before != key or front.front_key(os.environ) != key:
        _failed(path)  # started with other flags, or the source changed as it loaded
        return 1
    KEY[0] = key
    gc.freeze()  # what is loaded now stays shared with every worker, never copied by gc
    server = Front(path, idle)
    try:
        server.bind()
    except OSError:
        _failed(path)
        return 1
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(0))
    try:
        server.serve(held)
    finally:
        server.close()
    return 0


def _failed(path: str) -> None:
    """Clients stop starting fronts of this key for a while (front.FAILED_PAUSE)."""
    with contextlib.suppress(OSError):
        with open(path[: -len(".sock")] + ".failed", "a"):
            pass
        os.utime(path[: -len(".sock")] + ".failed")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chitin-front")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--idle", type=float, default=front.IDLE_SECONDS)
    parser.add_argument("--path", required=True, type=ast.literal_eval)
    args = parser.parse_args(argv)
    return run(args.socket, args.key, args.idle, list(args.path))


if __name__ == "__main__":
    sys.exit(main())
