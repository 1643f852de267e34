"""Retrieval and rendering: the insights that matter for a query, best first, and
PERSONALITY.md made of them. This is the session start: keep its imports lazy."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from chitin.core.reading import filters_of
from chitin.core.session import Session
from chitin.errors import StoreError, ValidationError
from chitin.lockfile import derived_folder
from chitin.model import arguments
from chitin.model.bounds import MAX_BUDGET, MAX_COUNT
from chitin.model.insight import format_timestamp
from chitin.model.search_text import well_formed
from chitin.notices import notice
from chitin.providers import ProviderError, answering
from chitin.render import budget
from chitin.retrieval.context import detect_category
from chitin.retrieval.scoring import DEFAULT_SHAPE, Settings
from chitin.search import engine, semantic
from chitin.search.engine import Retrieval

if TYPE_CHECKING:
    from chitin.retrieval.scoring import Settings
    from chitin.search.engine import Retrieval


class Query(NamedTuple):
    """What a retrieval or a render is asked: the situation in words, the filters,
    and how much may come back (``budget``: tokens, about 4 characters each, counted
    on the lines in their ``full`` form, with context, reasoning and limitations, or
    in their compact one)."""

    text: str = ""
    max_results: int = 15
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    min_confidence: float | None = None
    budget: int = 2000
    full: bool = False


def as_query(query: Query | str) -> Query:
    """The query, checked as the CLI's flags and the MCP tools' arguments are: a
    library caller's Query is a way in too (a max_results of -1 sliced the ranking to
    all but one, a min_confidence of 2 answered nothing, 2.5 raised a TypeError)."""
    # Anything but a Query is taken for the text, so that None or a number is refused
    # as "query must be a text" (it raised AttributeError: no attribute '_replace').
    asked = query if isinstance(query, Query) else Query(query)
    return asked._replace(
        text=arguments.text("query", asked.text),
        max_results=arguments.count("max_results", asked.max_results, MAX_COUNT),
        tags=arguments.tag_filter(asked.tags),  # [5] matched nothing, quietly
        budget=arguments.count("budget", asked.budget, MAX_BUDGET),
        min_confidence=arguments.lowest("min_confidence", asked.min_confidence),
        full=arguments.flag("full", asked.full),  # "no" read as true: the full lines
    )


class Retrieving:
    """Retrieval over one store (``chitin.Chitin`` holds one). ``at``: the commit and
    its time it answers as of (``diff --render``'s snapshot of a past commit), else
    the store's own HEAD."""

    def __init__(self, session: Session, at: tuple[str | None, datetime] | None = None) -> None:
        self.session = session
        self.at = at

    def settings(self, config: Mapping[str, Any] | None = None) -> Settings:
        """Scoring settings, with the overrides of the store's chitin.yaml."""

        if config is None:
            config = self.session.store.config() if not self.session.missing else {}
        shape = self.session.shape or DEFAULT_SHAPE
        return Settings.from_config(config)._replace(shape=shape, fusion=self.session.fusion)

    # A retrieval answers whatever chitin.yaml holds: it is the session start, which must
    # not fail for a hand edit. What it cannot use is set aside and said, and `chitin
    # check` names it; the commands that change settings still refuse a broken file.

    def _retrieval_config(self) -> tuple[Mapping[str, Any], str | None]:
        """The settings, or none and why: a file that does not parse names no provider
        either, so the retrieval goes by text alone."""

        if self.session.missing:
            return {}, None
        try:
            return self.session.store.config(), None
        except StoreError as error:
            return {}, (
                f"{error}; ranked by text alone, with the default settings "
                "(chitin check names the problem)"
            )

    def _retrieval_settings(self, config: Mapping[str, Any]) -> Settings:
        try:
            return self.settings(config)
        except ValidationError as error:
            notice(f"{error}; the default scoring settings are used (chitin check names it)")
            return self.settings({})

    def retrieve(self, query: Query | str, *, record: bool = True) -> Retrieval:
        """The insights that matter for ``query``, best first, and (``packed``) those of
        them that fit its budget. Never commits; with ``record``, the retrieval time
        (``now()``) of each result is noted in .chitin/."""

        asked = as_query(query)
        found = self.retrieve_at(asked, self.session.now(), record=record)
        fitting = [r.insight for r in found.ranked]
        return found._replace(
            packed=budget.pack(fitting, asked.budget, asked.full, found.short_ids)
        )

    def retrieve_at(
        self,
        query: Query,
        now: datetime,
        *,
        decay_at: datetime | None = None,
        record: bool = True,
    ) -> Retrieval:
        """``retrieve`` as of ``now``; decay is measured at ``decay_at`` (render: the
        commit's time), else at ``now``."""

        text = well_formed(query.text)
        filters = filters_of(query.types, query.tags, query.min_confidence)
        config, failure = self._retrieval_config()  # read and parsed once
        settings = self._retrieval_settings(config)
        if self.session.missing:
            return Retrieval(detect_category(text), [], None)
        picked, meaning = semantic.Choice(semantic.NO_PROVIDER, None), None
        if failure is None:
            try:
                picked = semantic.choice(config)
            except ValidationError as error:
                failure = f"semantic search unavailable ({error}); ranked by text alone"
        if picked.provider != semantic.NO_PROVIDER:  # an empty query too: see engine.retrieve
            try:
                with answering():  # a probe of the dimensions, for one
                    meaning = self.session.semantic(picked)
            except ProviderError as error:
                failure = f"semantic search unavailable ({error}); ranked by text alone"
        found = engine.retrieve(
            self.session.cache,
            text,
            now=decay_at or now,
            settings=settings,
            max_results=query.max_results,
            filters=filters,
            semantic=meaning,
        )
        from chitin.core import background

        if failure:
            found = found._replace(degraded=failure)
        elif found.unembedded:
            note = background.waiting_note(
                self.session.root, config, self.session.env, found.unembedded, now.timestamp()
            )
            found = found._replace(degraded=note)
        elif meaning is not None and getattr(meaning.provider, "unprepared", False):
            background.prepare_later(self.session.root, config, self.session.env, now.timestamp())
        if record:
            stamp = format_timestamp(now)
            ids = (r.insight.id for r in found.ranked)
            found = found._replace(recorded=self.session.retrieval_times().record(ids, stamp))
        return found

    def snapshot_time(self) -> tuple[str | None, datetime]:
        """The store's commit and its time: what ``render`` is a function of."""
        if self.at is not None:
            return self.at
        remembered = derived_folder(self.session.root) / "head-time"
        found = None if self.session.missing else self.session.store.git.head_and_time(remembered)
        if found is None:
            return None, datetime.fromtimestamp(0, tz=UTC)
        return found
