"""The one thread that uses the store, for a server that answers many requests.

A ``Chitin`` holds SQLite connections and, once it has retrieved by meaning, the
loaded embedding model: it belongs to one thread. Requests are handed to that thread
and run one after another, each first seeing what changed on disk since the last
(``Chitin.refresh``). A write is never cut short by a cancelled request: the thread
finishes it, and only the answer is dropped.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from chitin.errors import AmbiguousIdError, NotFoundError, StateError, ValidationError

if TYPE_CHECKING:
    from chitin import Chitin

T = TypeVar("T")

# Errors about the request: the store is as it was, and the instance stays open. Any
# other failure closes it, so that the next request opens the store anew.
REQUEST_ERRORS = (ValidationError, NotFoundError, AmbiguousIdError, StateError)


class StoreWorker:
    def __init__(self, open_store: Callable[[], Chitin]) -> None:
        self._open_store = open_store
        self._chitin: Chitin | None = None
        self._thread = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="chitin-store"
        )
        self._stopping = False

    async def run(self, work: Callable[[Chitin], T]) -> tuple[T, list[str]]:
        """``work(chitin)`` on the store's thread, and what chitin had to say on the
        way (``warning: …`` lines: files it skipped, derived data it repaired)."""
        if self._stopping:  # the process is about to end: no answer, so no half-written one
            await asyncio.Event().wait()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._call, work)

    def start_warming(self) -> None:
        """Load the model and sync the cache now, between requests (see Chitin.warm)."""
        self._thread.submit(self._warm)

    def close(self) -> None:
        """Finish the request in progress, then close the store; later requests wait,
        unanswered, for the process to end."""
        if self._stopping:
            return
        self._stopping = True
        self._thread.submit(self._close)
        self._thread.shutdown(wait=True)

    # -------------------------------------------------------------- on the thread

    def _call(self, work: Callable[[Chitin], T]) -> tuple[T, list[str]]:
        from chitin.notices import take

        try:
            chitin = self._opened()
            chitin.refresh()
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
            chitin = self._opened()
            chitin.refresh()
            chitin.warm()
        except Exception:  # a warm-up is a favour: the first request meets the failure
            self._close()

    def _close(self) -> None:
        if self._chitin is not None:
            chitin, self._chitin = self._chitin, None
            chitin.close()


def _problems(chitin: Chitin) -> list[str]:
    """The insight files that could not be read, named as the CLI names them."""
    from chitin.render.text import problem_lines

    return [] if chitin.missing else problem_lines(chitin.problems())
