"""The local model's embeddings in flight, and the interpreter's exit (local.py says
why: onnxruntime's threads torn down under a run in progress aborted the process).
Each embedding is counted while it runs; ``close`` waits for a provider's own, and at
exit every embedding in flight is stopped at its next batch and waited for, before
any model is let go."""

from __future__ import annotations

import atexit
import contextlib
import threading
import weakref
from collections.abc import Iterator
from typing import Protocol

from chitin.providers import ProviderError


class Releasing(Protocol):
    """A provider whose model is let go at exit."""

    def release(self) -> None: ...


# How long the interpreter's exit waits for an embedding in flight: one batch takes
# ~0.1 s on two cores; the wait ends earlier as soon as none is running.
EXIT_WAIT_SECONDS = 10.0


class _Stopped(BaseException):
    """The interpreter exits: the embedding in flight ends here (see ``_halt``)."""


def _halt() -> None:
    """End an embedding stopped by the interpreter's exit. What is left running then is
    a daemon thread (Python joins the others before its exit handlers run): it waits
    here, outside onnxruntime, and ends with the process, without an error to print.
    Only on the main thread (an exit handler that embeds) does it raise."""
    if threading.current_thread() is threading.main_thread():
        raise ProviderError("the program is exiting; the embedding was stopped")
    threading.Event().wait()


class Flights:
    """The embeddings running now, per provider, and whether the interpreter exits."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.running: dict[int, int] = {}
        self.exiting = False
        self.loaded: weakref.WeakSet[Releasing] = weakref.WeakSet()
        self.watching = False

    @contextlib.contextmanager
    def flying(self, provider: Releasing) -> Iterator[None]:
        key = id(provider)
        with self.changed:
            exiting = self.exiting
            if not exiting:
                self.running[key] = self.running.get(key, 0) + 1
        if exiting:
            _halt()
        stopped = False
        try:
            yield
        except _Stopped:
            stopped = True
        finally:
            with self.changed:
                self.running[key] -= 1
                if not self.running[key]:
                    del self.running[key]
                self.changed.notify_all()
        if stopped:
            _halt()

    def stop_if_exiting(self) -> None:
        """At exit, an embedding stops before its next run of the model."""
        if self.exiting:
            raise _Stopped

    def wait(self, provider: Releasing | None, timeout: float | None) -> None:
        """Until ``provider``'s embeddings (None: every one) have ended."""
        key = None if provider is None else id(provider)
        with self.changed:
            self.changed.wait_for(
                lambda: not (self.running if key is None else self.running.get(key)),
                timeout,
            )

    def watch(self, provider: Releasing) -> None:
        """Know of a provider that loaded its model, to let it go at exit."""
        self.loaded.add(provider)
        if not self.watching:
            self.watching = True
            atexit.register(self.at_exit)

    def at_exit(self) -> None:
        """Stop what runs (at its next batch), wait for it, then let every model go,
        while the interpreter is whole (see Releasing.close)."""
        with self.changed:
            self.exiting = True
        self.wait(None, EXIT_WAIT_SECONDS)
        for provider in list(self.loaded):
            provider.release()


FLIGHTS = Flights()
