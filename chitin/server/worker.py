"""The one thread that uses the store, for a server that answers many requests.

A ``Chitin`` holds SQLite connections and, once it has retrieved by meaning, the
loaded embedding model: it belongs to one thread. Requests are handed to that thread
and run one after another, in the order they came, each first seeing what changed on
disk since the last (``Chitin.refresh``). A write is never cut short: ``stop`` lets
the request in progress finish (and answer), and drops the ones still waiting.
"""

from __future__ import annotations

import queue
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from chitin.errors import AmbiguousIdError, NotFoundError, StateError, ValidationError
from chitin.location import missing_note
from chitin.notices import take

if TYPE_CHECKING:
    from chitin import Chitin

T = TypeVar("T")

# Errors about the request: the store is as it was, and the instance stays open. Any
# other failure closes it, so that the next request opens the store anew.
REQUEST_ERRORS = (ValidationError, NotFoundError, AmbiguousIdError, StateError)

# What a job hands back: its value and chitin's warnings, or what it raised.
Done = Callable[[Any, list[str], BaseException | None], None]
_LAST = None  # the queue's last item: close the store, end the thread

# The signals that stop the server. The kernel hands a process's signal to any thread
# that does not block it; taken by this thread (or by the model's threads, which
# inherit its mask), it would leave the main thread blocked in its read of stdin, its
# Python handler never run, and the server alive until the client wrote again (1 stop
# in ~60 under test, bench/stress_mcp.py). So this thread blocks them.
STOPPING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class StoreWorker:
    def __init__(self, open_store: Callable[[], Chitin]) -> None:
        self._open_store = open_store
        self._chitin: Chitin | None = None
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._stopping = False
        self._ended = False
        self._thread = threading.Thread(target=self._serve, name="chitin-store", daemon=True)
        self._thread.start()

    def submit(self, work: Callable[[Chitin], Any], done: Done, wanted: Callable[[], bool]) -> None:
        """Run ``work(chitin)`` on the store's thread, after the jobs before it, then
        ``done(value, warnings, None)`` or ``done(None, [], error)`` there; unless, when
        its turn comes, it is no longer ``wanted`` (its request was cancelled)."""
        if not self._stopping:
            self._jobs.put(lambda: self._run(work, done) if wanted() else None)

    def start_warming(self) -> None:
        """Load the model and sync the cache now, between requests (see Chitin.warm)."""
        if not self._stopping:
            self._jobs.put(self._warm)

    def finish(self) -> None:
        """Run every job handed in so far, then close the store (stdin has ended)."""
        self._end()

    def stop(self) -> None:
        """Finish the job in progress, drop those waiting, close the store (a signal)."""
        self._stopping = True
        ending = False
        while True:
            try:
                ending |= self._jobs.get_nowait() is _LAST
            except queue.Empty:
                break
        if ending:  # stdin ended meanwhile (finish): its end mark stays, or none would
            self._jobs.put(_LAST)
        self._end()

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._stopping = True
            self._jobs.put(_LAST)
        if threading.current_thread() is not self._thread:
            self._thread.join()

    # -------------------------------------------------------------- on the thread

    def _serve(self) -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
        while (job := self._jobs.get()) is not _LAST:
            job()
        self._close()

    def _run(self, work: Callable[[Chitin], Any], done: Done) -> None:
        try:
            value, warnings = self._call(work)
        except BaseException as error:  # the answer says it; the thread goes on
            done(None, [], error)
        else:
            done(value, warnings, None)

    def _call(self, work: Callable[[Chitin], T]) -> tuple[T, list[str]]:
        try:
            # What changed on disk since the last request is seen: every use case of
            # an instance kept open refreshes first (Session.repairing).
            chitin = self._opened()
            value = work(chitin)
            warnings = _problems(chitin)
        except REQUEST_ERRORS:
            raise  # (the failure's answer says the notices too: tools.failure)
        except BaseException:
            self._close()
            raise
        return value, [*warnings, *(f"warning: {line}" for line in take())]

    def _opened(self) -> Chitin:
        if self._chitin is None:
            self._chitin = self._open_store()
        return self._chitin

    def _warm(self) -> None:
        """(What it repairs on the way, the first request says.)"""
        try:
            self._opened().warm()
        except Exception:  # a warm-up is a favour: the first request meets the failure
            self._close()

    def _close(self) -> None:
        if self._chitin is not None:
            chitin, self._chitin = self._chitin, None
            chitin.close()


def _problems(chitin: Chitin) -> list[str]:
    """The insight files that could not be read, named as the CLI names them (on the
    store's thread: the handshake does not wait for the text renderer)."""
    from chitin.render.text import problem_lines

    if chitin.missing:  # a read goes on, on an empty store; the CLI says so too
        return [missing_note(chitin.root)]
    return problem_lines(chitin.problems())
