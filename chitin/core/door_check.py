"""A contribute's check against the stored insights: its exact duplicate refused
before anything is written, then the door's judgement (search/door.py) in two halves,
the first while git stages the new file, the second after the commit, and what the
judgement says when it read words alone. Lifecycle.contribute drives it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from chitin.core import background
from chitin.core.session import Session
from chitin.errors import DuplicateError
from chitin.model.insight import Insight
from chitin.notices import notice
from chitin.providers import ProviderError, answering
from chitin.retrieval.judgement import side_of
from chitin.search import door, own_vectors, semantic

EMBEDDING_OFF = "embedding is off (provider: none): duplicates judged by words alone"


class DoorCheck:
    """The check of one session's contributes."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def judging(self, insight: Insight) -> Callable[[], door.Found]:
        """The stored insights a new one nearly duplicates or conflicts with, and why
        the judgement read words alone if it did, when called. Both halves ask an HTTP
        provider within one wait (INTERACTIVE_SECONDS), whatever they ask."""
        with answering() as until:
            meaning, why_not = self.meaning()
            judging = door.examine_later(self.session.cache, insight, meaning, why_not)

        def judged() -> door.Found:
            with answering(until=until):
                return judging()

        return judged

    def keep_vectors(self, insight: Insight, rows: Sequence[Sequence[float]]) -> None:
        """Store the vectors the door made of a new insight (search/own_vectors.py)."""
        meaning, _ = self.meaning()
        if meaning is not None:
            own_vectors.keep(meaning, insight, rows)

    def refuse_exact(self, insight: Insight) -> None:
        """Refuse a stored insight's exact duplicate (DuplicateError)."""
        same = door.exact_duplicates(self.session.cache, side_of(insight))
        if same:
            known = same[0].id
            # a program's words; the CLI and the MCP server say theirs (their flag, tool)
            raise DuplicateError(
                known,
                f"already known as {known}: reinforce {known} to strengthen it, as "
                f"`chitin reinforce {known}` does (check=False writes a second copy anyway)",
            )

    def judged(self, judging: Callable[[], door.Found]) -> door.Found:
        """The judgement's result, its notice said (once, where it read words alone)."""
        found = judging()
        if found.unembedded:
            found = found._replace(degraded=self._waiting(found.unembedded))
        if found.degraded and found.degraded != EMBEDDING_OFF:  # said once, when chosen
            notice(found.degraded)
        return found

    def _waiting(self, count: int) -> str:
        """What the check says of ``count`` insights without a vector, having started
        the background embedding for them if it may: without it, every later check
        would judge them by words too."""
        session = self.session
        if not background.enabled(session.store.config(), session.env):
            return door.unembedded_note(count)
        status = background.ensure_running(session.root, session.env, time.time())
        if status.state == "failed":
            return door.unembedded_note(
                count, f"the background embedding failed: {status.detail}; `chitin embed`"
            )
        started = "started now" if status.state == "started" else "already running"
        return door.unembedded_note(count, f"being embedded in the background, {started}")

    def meaning(self) -> tuple[Any, str | None]:
        """The store's embedding provider and vectors, or None and why not."""
        picked = semantic.choice(self.session.store.config())
        if picked.provider == semantic.NO_PROVIDER:
            return None, EMBEDDING_OFF
        try:
            with answering():  # a probe of the dimensions, for one
                return self.session.semantic(picked), None
        except ProviderError as error:
            return None, f"no vectors ({error}): duplicates judged by words alone"
