"""The front's worker: a fork of the front that becomes the client's process, as far as
a command can tell, then runs what console ``main`` runs (chitin/front/__init__.py).

It takes the client's fds 0, 1 and 2 (so git's processes inherit them too), its cwd
(the supervisor took it before the fork), environment, umask and time zone, the locale
Python's start-up sets from that environment, the default signal handlers, and stdio
made as Python's start-up made the client's (encoding, errors, line buffering). It
leads a process group of its own, which the supervisor kills when the client is gone
(a forwarded signal goes to the worker alone), and dies with the
supervisor (PR_SET_PDEATHSIG): a worker never outlives the client's connection. It is
forked ahead of need (a spare, docs/design.md §9n): the request comes later, from its
supervisor, with the client's fds and an fd of its cwd.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import io
import locale
import marshal
import os
import signal
import socket
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any, NoReturn

from chitin import console, process
from chitin.front import FORWARDED
from chitin.residency import receive_exactly

PR_SET_PDEATHSIG = 1
NAMES = ("<stdin>", "<stdout>", "<stderr>")


def run(channel: Any, supervisor: int, pipes: tuple[int, int]) -> NoReturn:
    """Wait, as a spare, for the request the supervisor passes on ``channel`` (with the
    client's fds 0-2 and its cwd), become the client's process and run its command once
    the supervisor says go (a byte on ``wait``); the outcome goes back on ``told``
    before the closes the client need not wait for (``answered``). Never returns."""
    wait, told = pipes
    try:
        _bound_to(supervisor)  # ahead of the request: out of the client's wait
        request, fds = _request(channel)
        os.fchdir(fds[3])
        os.close(fds[3])
        _take_fds(fds[:3])
        _take_environment(request["env"], request["umask"])
        _take_signals()
        _take_streams(request["streams"])
        # Blocked since the fork (server._fork_blocked): one that came meanwhile is
        # raised here, where it is said that nothing began.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        sys.argv = list(request["argv"])
        if os.read(wait, 1) != b"g":  # the client gave up: it runs the command itself
            os._exit(1)
        process.answer_early(lambda code: answered(told, code, wait))
    except KeyboardInterrupt:  # forwarded with the go, before the command began
        _not_begun()
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
        os._exit(1)
    _finish(_command(sys.argv[1:]))


def _request(channel: Any) -> tuple[dict[str, Any], list[int]]:
    """The request and its four fds, from the supervisor; a supervisor gone (its front
    left before a client came): the spare's end, quietly."""
    try:
        head, fds, _, _ = socket.recv_fds(channel, 4, 4)
        if len(head) < 4 or len(fds) != 4:
            raise ValueError("no request")
        request = marshal.loads(receive_exactly(channel, int.from_bytes(head, "big"), None))
    except (OSError, ValueError, EOFError):
        os._exit(0)
    channel.close()
    return request, fds


def answered(told: int, code: int, sent: int) -> None:
    """Give the client its outcome now: its stdio let go (a reader of its output sees
    the end), then the exit code to the supervisor, which sends it on. The worker's own
    end (the interpreter's exit) no longer delays the client; its caches were closed
    before, so .chitin/ is still when the client returns (docs/design.md §9l). Then wait
    until the supervisor has sent it (its end of ``sent`` closes): this process's end,
    the teardown of its memory (~1 ms), ran first where both shared a core, and
    delayed the client's answer by as much (docs/design.md §9n)."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in (0, 1, 2):
            os.dup2(null, fd)
    finally:
        os.close(null)
    try:
        os.write(told, bytes([code & 0xFF]))
    finally:
        os.close(told)
    os.read(sent, 1)  # its end closed: the outcome sent, or the supervisor gone


def _not_begun() -> NoReturn:
    """A Ctrl-C the client forwarded while the worker was still taking it on (the front's
    handler raises it): no command began, and console ``main`` says so in-process."""
    with contextlib.suppress(OSError):
        os.write(2, console.nothing_changed().encode())  # sys.stderr: the client's
    os._exit(130)


def _bound_to(supervisor: int) -> None:
    with contextlib.suppress(OSError):  # the supervisor may have made it so already
        os.setpgid(0, 0)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != supervisor:  # it died before the death signal was asked for
        os._exit(1)


def _take_fds(fds: Sequence[int]) -> None:
    for target, fd in enumerate(fds):
        os.dup2(fd, target)  # inheritable, as a process's stdio is
    for fd in fds:
        if fd > 2:
            os.close(fd)


def _take_environment(env: dict[bytes, bytes], umask: int) -> None:
    os.environb.clear()  # environ and environb share their data, and putenv follows
    os.environb.update(env)
    os.umask(umask)
    time.tzset()
    with contextlib.suppress(locale.Error):
        locale.setlocale(locale.LC_CTYPE, "")  # what Python's start-up does
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile.tempdir = None  # type: ignore[attr-defined] # found again from $TMPDIR, at its first use


def _take_signals() -> None:
    """The handlers Python's start-up leaves: Ctrl-C raises, SIGPIPE and SIGXFSZ are
    ignored, everything else as the system has it."""
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(number, signal.SIG_IGN)


def _take_streams(streams: Sequence[Sequence[Any]]) -> None:
    made = [_stream(fd, *given) for fd, given in enumerate(streams)]
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made  # type: ignore[misc]


def _stream(
    fd: int, encoding: str, errors: str, line_buffering: bool, write_through: bool, raw: bool
) -> io.TextIOWrapper:
    """A text stream on ``fd`` as Python's start-up makes one (pylifecycle's
    create_stdio): buffered, unless unbuffered (``-u``); newline ``\\n``."""
    buffered: Any = open(fd, "wb" if fd else "rb", 0 if raw else -1, closefd=False)  # noqa: SIM115 - the stream keeps it
    (buffered if raw else buffered.raw).name = NAMES[fd]
    return io.TextIOWrapper(
        buffered,
        encoding=encoding,
        errors=errors,
        newline="\n",
        line_buffering=line_buffering,
        write_through=write_through,
    )


def _command(argv: Sequence[str]) -> int:
    """Run the command as console ``main`` does; its exit status."""
    process.hold_collector()
    try:
        console.run_command(argv)
    except SystemExit as leaving:
        return _status(leaving.code)
    except KeyboardInterrupt:  # as the interpreter ends on one: by the signal itself
        traceback.print_exc()
        _finish_by(signal.SIGINT)
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def _status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        sys.stderr.write(f"{code}\n")  # as the interpreter shows sys.exit("a message")
    return 1


def _finish(code: int) -> NoReturn:
    """What the interpreter does at its end that a command may count on: wait for its
    threads, run its exit functions, flush its output."""
    threading = sys.modules.get("threading")
    if threading is not None:
        with contextlib.suppress(Exception):
            threading._shutdown()
    atexit._run_exitfuncs()
    process.leave(code)
    raise AssertionError("unreachable")  # pragma: no cover - leave ends the process


def _finish_by(number: int) -> NoReturn:
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    os._exit(128 + number)
