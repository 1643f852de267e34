"""The front's supervisors (chitin/front/server.py forks them): one per command, forked
ahead of need with its worker (a *spare*, docs/design.md §9n). It waits for the
connection the front hands over, reads the request, passes it to its worker with the
client's fds and cwd, acknowledges with the worker's pid, then relays: the client's
signals to the worker, the worker's outcome to the client, and the client's end (its
death) to the worker's whole group. It is the worker's parent, so nothing it signals
can be a reused pid.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import select
import signal
import socket
import time
from typing import Any

from chitin import front
from chitin.front.worker import run as become_the_client
from chitin.residency import receive_exactly

REQUEST_SECONDS = 5.0  # a client that sends nothing for this long is let go
KEY = [""]  # the key this front serves (set once, before any fork)


def supervise(channel: Any) -> int:  # pragma: no cover - a forked child
    """A spare: fork the worker now, wait for the connection the front hands over on
    ``channel``, read its request, pass it to the worker with the client's fds and cwd,
    and relay until it ends. The worker waits for the client's go, sent once the client
    has read the acknowledgement: a client that gave up waiting runs the command itself,
    and the worker, which never began, dies. A front that left (the channel's end): the
    spare and its worker leave too."""
    supervisor = os.getpid()
    try:
        wait, go = os.pipe()
        heard, told = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        worker = _fork_blocked()
    except OSError:
        return 1
    if worker == 0:
        channel.close()
        ours.close()
        os.close(go)
        os.close(heard)
        become_the_client(theirs, supervisor, (wait, told))
    with contextlib.suppress(OSError):  # as the worker does: whichever runs first
        os.setpgid(worker, worker)
    theirs.close()
    os.close(wait)
    os.close(told)
    connection = _handed(channel)
    request, fds = _request(connection) if connection is not None else (None, [])
    if request is None:
        return _never_begun(worker, 0 if connection is None else 1)
    try:
        os.chdir(request["cwd"])  # a cwd this process cannot enter: the client runs it
        fds.append(os.open(".", os.O_PATH | os.O_DIRECTORY))
        front.send_frame(ours, request, fds)  # the worker takes them on meanwhile
    except (OSError, ValueError):
        return _never_begun(worker, 1)
    finally:
        for fd in fds:
            os.close(fd)
        ours.close()
    try:
        pidfd = os.pidfd_open(worker)
        front.send_frame(connection, {"key": request["key"], "pid": worker})
        answer = front.receive_frame(connection, time.monotonic() + REQUEST_SECONDS)
        if answer.get("go") is not True:
            raise ValueError("no go")
        os.write(go, b"g")
    except (OSError, ValueError, EOFError, TypeError):
        os.close(go)  # the worker reads the end of its pipe, and leaves
        return _never_begun(worker, 1)
    return _relay(connection, worker, pidfd, (heard, go))


def _handed(channel: Any) -> Any | None:  # pragma: no cover - a forked child
    """The connection the front hands over, or None when the front left instead."""
    try:
        _, fds, _, _ = socket.recv_fds(channel, 1, 1)
    except OSError:
        return None
    finally:
        channel.close()
    if len(fds) != 1:
        for fd in fds:
            os.close(fd)
        return None
    # Its kind given: not asked of the kernel (three calls)
    return socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fileno=fds[0])


def _never_begun(worker: int, code: int) -> int:  # pragma: no cover - a forked child
    """End the worker that never got its go (a spare's, or one whose client left)."""
    kill(worker, signal.SIGKILL)
    os.waitpid(worker, 0)
    return code


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


def _relay(  # pragma: no cover - a forked child
    connection: Any, worker: int, pidfd: int, pipes: tuple[int, int]
) -> int:
    """Forward the client's signals to the worker until it ends; kill its whole group
    if the client goes away; then send its status. A worker that told its exit code on
    ``heard`` first (worker.answered) has it sent at once, then its end begins (``sent``
    closed), and it is waited for alone: its client may end meanwhile, and the
    worker's end is not killed."""
    heard, sent = pipes
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
                os.close(sent)
                os.waitpid(worker, 0)
                return 0
            continue
        if connection.fileno() in ready:
            try:
                message = front.receive_frame(connection, time.monotonic() + REQUEST_SECONDS)
            except (OSError, ValueError, EOFError, TypeError):  # the client is gone
                kill(worker, signal.SIGKILL)
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


def kill(worker: int, number: int) -> None:
    """The worker leads its own process group (git's processes are in it): a client
    gone (killed) takes all of them with it, as a SIGKILL of its group would."""
    try:
        os.killpg(worker, number)
    except OSError:  # not its group yet: the worker itself, our child, so never a reused pid
        with contextlib.suppress(OSError):
            os.kill(worker, number)
