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

Each connection gets a supervisor, forked from the front ahead of need with its worker
(front/worker.py) forked and waiting: a *spare* (docs/design.md §9n), so that neither
fork is in a client's wait. The front hands the accepted connection to the spare, then
forks the next one. The supervisor reads the request, passes it to its worker with the
client's fds and cwd, acknowledges with the worker's pid, then watches two things with
``poll``: the connection (a signal to forward; its end: the client died, and the worker
is killed) and the worker's pidfd (its end: the status goes back to the client). The
supervisor is the worker's parent, so it can signal it without a pid-reuse race, and
the front's own loop stays a plain accept. The front exits after ``--idle`` seconds
with no command and none running, removing its socket and ending its spare (a spare
whose front died sees its channel end, and leaves).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gc
import importlib
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any

from chitin import front
from chitin.front import supervisor
from chitin.front.supervisor import kill, supervise
from chitin.residency import at_socket, peer_uid, private, release_lock, take_lock

SPARE_BESIDE = 0.5  # seconds a command runs before the next spare is forked beside it
# What the front imports, so that no worker does: the CLI and what its commands load.
# Not onnxruntime, tokenizers or httpx: heavy, rarely needed, and some start threads
# when loaded (a fork would copy their locks, not their threads). numpy is imported
# apart (``preload_numpy``): with one BLAS thread, so that it starts none.
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


# OpenBLAS starts its pool (a thread a core, less one) when numpy is imported, unless
# told one thread. Each variable a BLAS build may read; OpenBLAS reads them once, at load.
ONE_BLAS_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def preload_numpy() -> None:
    """Import numpy with one BLAS thread, so that the front stays a process of one
    thread, and a served command's search by meaning finds numpy loaded (index/
    vector_search.py uses it then: docs/design.md §9o). The variables are set in the
    front's own environment for the import only; a worker takes the client's
    environment, but keeps the BLAS it inherited: one thread (a matrix-vector product
    of a store's rows needs no more)."""
    saved = {name: os.environ.get(name) for name in ONE_BLAS_THREAD}
    os.environ.update(dict.fromkeys(ONE_BLAS_THREAD, "1"))
    try:
        with contextlib.suppress(ImportError):
            importlib.import_module("numpy")
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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
        self.supervisors: dict[int, int | None] = {}  # those that took a connection: pidfds
        self.handed = 0.0  # when the last connection was handed to a supervisor
        self.spare: tuple[int, Any] | None = None  # a supervisor waiting, and its channel
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
            at_socket(self.path, listener.bind)
        finally:
            os.umask(previous)
        listener.listen(64)
        self.listener = listener
        self.bound = os.stat(self.path).st_ino

    def serve(self, held: int) -> None:
        """Accept until ``idle`` seconds pass with no command and none running; fork the
        next spare when no command runs (or one has run for a while: an MCP server's),
        so that its forks do not take CPU from the command it would follow."""
        self.listener.setblocking(False)
        while True:
            self.reap()
            if self.spare is None and self.quiet():
                self.spare = self.fork_spare(held)
            if self.supervisors:
                self.last = time.monotonic()
            left = self.idle - (time.monotonic() - self.last)
            if left <= 0:
                return
            watch = select.poll()  # the listener, and the end of each running command
            for fd in (self.listener.fileno(), *self.supervisors.values()):
                if fd is not None:
                    watch.register(fd, select.POLLIN)
            if not watch.poll(min(left, 1.0) * 1000):
                continue
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                continue  # a supervisor ended, or the client left before its accept
            self.last = self.handed = time.monotonic()
            with connection:
                self.hand_over(connection, held)

    def quiet(self) -> bool:
        return not self.supervisors or time.monotonic() - self.handed > SPARE_BESIDE

    def hand_over(self, connection: Any, held: int) -> None:
        """Give the connection to the spare (one forked now if there is none, or if the
        spare died): its supervisor answers the client from then on."""
        if peer_uid(connection) not in (None, os.getuid()):
            return
        for _ in range(2):
            spare, self.spare = self.spare or self.fork_spare(held, connection), None
            if spare is None:
                return  # no fork: the client's acknowledgement never comes, it runs itself
            pid, channel = spare
            self.supervisors[pid] = _pidfd(pid)  # reaped as the others: busy, or dead
            with channel:
                try:
                    socket.send_fds(channel, [b"c"], [connection.fileno()])
                except OSError:
                    kill(pid, signal.SIGKILL)  # a spare that cannot take it: a new one
                    continue
            return

    def fork_spare(self, held: int, connection: Any = None) -> tuple[int, Any] | None:
        """A supervisor forked ahead of the connection it will serve, which forks its
        worker at once: both forks, and the worker's start, leave the client's wait."""
        try:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            ours.close()
            theirs.close()
            return None
        if pid == 0:  # pragma: no cover - the supervisor, measured through real processes
            code = 1
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                self.listener.close()
                os.close(held)  # the front's lock is the front's alone
                ours.close()
                _close_inherited(connection, self.supervisors.values())
                code = supervise(theirs)
            finally:
                os._exit(code)
        theirs.close()
        return pid, ours

    def reap(self) -> None:
        if self.spare is not None and _ended(self.spare[0]):
            self.spare[1].close()
            self.spare = None
        for pid, pidfd in list(self.supervisors.items()):
            if _ended(pid):
                if pidfd is not None:
                    os.close(pidfd)
                del self.supervisors[pid]

    def close(self) -> None:
        """End the spare (it has no connection: only this process hands them), and
        remove the socket if it is still ours (not a successor's)."""
        if self.spare is not None:
            pid, channel = self.spare
            channel.close()
            kill(pid, signal.SIGKILL)  # its worker dies with it (PR_SET_PDEATHSIG)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            self.spare = None
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == self.bound:
                os.unlink(self.path)
        if self.listener is not None:
            self.listener.close()


def _close_inherited(connection: Any, pidfds: Any) -> None:  # pragma: no cover - a child
    """What the front had open that a spare must not keep: the connection being handed
    (to another spare; a copy held here would hide its end from its client) and the
    pidfds of the running commands."""
    if connection is not None:
        connection.close()
    for fd in pidfds:
        if fd is not None:
            os.close(fd)


def _pidfd(pid: int) -> int | None:
    """Our child's pidfd, which the front's poll wakes on at its end (None: the loop's
    second finds it)."""
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def _ended(pid: int) -> bool:
    """Whether our child ``pid`` has ended (reaped now, or already)."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


# ------------------------------------------------------------------ start-up


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
    preload_numpy()
    preload(PRELOAD)
    if before != key or front.front_key(os.environ) != key:
        _failed(path)  # started with other flags, or the source changed as it loaded
        return 1
    supervisor.KEY[0] = key
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
