"""Semantic candidates: the vector sidecar kept fresh, and nearest neighbours of a query.

Stale or missing rows are embedded by the command that needs them (only those rows),
up to AUTO_EMBED_LIMIT at a time; beyond that, ``chitin embed`` does the bulk work
with a progress bar, and insights without a vector are still found by their text.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from chitin.errors import StoreError, ValidationError
from chitin.index.cache import Cache, Filters
from chitin.index.vectors import VectorStore
from chitin.model.insight import embedding_text
from chitin.providers import (
    DEFAULT_PROVIDER,
    REGISTRY,
    Provider,
    ProviderError,
    create,
    identity,
)

AUTO_EMBED_LIMIT = 256
NEIGHBOURS = 200
CHUNK = 512  # insights embedded and saved at a time (a crash loses at most this much work)


class Semantic(NamedTuple):
    provider: Provider
    vectors: VectorStore


class Nearest(NamedTuple):
    hits: list[tuple[str, float]]  # (id, cosine), best first
    degraded: str | None
    unembedded: int  # insights left without a current vector


Progress = Callable[[int, int], None]


def close(semantic: Semantic) -> None:
    """Release the sidecar, and a model the provider holds (see LocalProvider.close)."""
    semantic.vectors.close()
    release = getattr(semantic.provider, "close", None)
    if callable(release):
        release()


def refresh(
    cache: Cache,
    semantic: Semantic,
    limit: int | None = None,
    progress: Progress | None = None,
    force: bool = False,
) -> tuple[int, int]:
    """Embed the stale and missing rows (all rows with ``force``), at most ``limit``.

    Returns (embedded, still stale). Rows of insights that are gone are freed.
    """
    current = cache.text_hashes(Filters(archived=None))
    held = semantic.vectors.fresh()
    semantic.vectors.forget(i for i in held if i not in current)
    stale = sorted(i for i, h in current.items() if force or held.get(i) != h)
    todo = stale if limit is None else stale[:limit]
    insights = cache.by_ids(todo, Filters(archived=None))
    done = 0
    for start in range(0, len(todo), CHUNK):
        chunk = [insights[i] for i in todo[start : start + CHUNK] if i in insights]
        vectors = semantic.provider.embed([embedding_text(i) for i in chunk], "document")
        semantic.vectors.put([(i.id, current[i.id]) for i in chunk], vectors)
        done += len(chunk)
        if progress is not None:
            progress(done, len(todo))
    return done, len(stale) - done


def nearest(
    cache: Cache, semantic: Semantic, query: str, filters: Filters, strict: bool = False
) -> Nearest:
    """Insights nearest to ``query`` in meaning; on a provider failure, none, and why
    (or, ``strict``, the failure itself).

    A store with no vectors at all and more insights than AUTO_EMBED_LIMIT is left to
    text (and ``chitin embed``): embedding it here would stall a session start.
    """
    vectors = semantic.vectors
    if vectors.empty():
        waiting = len(cache.text_hashes(Filters(archived=None)))
        if waiting > AUTO_EMBED_LIMIT:
            return Nearest([], None, waiting)
    try:
        left = _refreshed(cache, semantic)
        # Hooks repeat the same query; while nothing changed, so does its answer, and it
        # is given without the model, numpy or a scan of the vectors.
        state = f"{cache.generation()}:{vectors.note('generation')}:{filters!r}"
        hits = vectors.known_hits(query, state)
        if hits is None:
            vector = vectors.cached_query(query)
            if vector is None:
                vector = semantic.provider.embed([query], "query")[0]
                vectors.cache_query(query, vector, time.time_ns())
            rows = vectors.known_rows(state)
            if rows is None:
                rows = cache.current_vector_rows(vectors.index_path, filters)
                vectors.keep_rows(state, rows)
            hits = vectors.nearest(vector, rows, NEIGHBOURS)
            vectors.keep_hits(query, state, hits)
    except ProviderError as error:
        if strict:
            raise
        return Nearest([], f"semantic search unavailable ({error}); ranked by text alone", 0)
    return Nearest(hits, None, left)


def _refreshed(cache: Cache, semantic: Semantic) -> int:
    """Embed what went stale since the cache last changed; how many still wait."""
    vectors = semantic.vectors
    if vectors.note("refreshed") == f"{cache.generation()}:{vectors.note('generation')}":
        return int(vectors.note("waiting") or 0)
    _, left = refresh(cache, semantic, AUTO_EMBED_LIMIT)
    vectors.remember("waiting", str(left))
    vectors.remember("refreshed", f"{cache.generation()}:{vectors.note('generation')}")
    return left


# ------------------------------------------------------------------ set-up

NO_PROVIDER = "none"


class Choice(NamedTuple):
    provider: str
    model: str | None


def choice(config: Mapping[str, Any]) -> Choice:
    """The provider chitin.yaml chose (``embedding: {provider, model}``); local by default.
    ``provider: none`` turns semantic search off."""
    section = config.get("embedding") or {}
    if not isinstance(section, Mapping):
        raise ValidationError(
            "embedding", "chitin.yaml: embedding must be a mapping such as {provider: local}"
        )
    name = section.get("provider") or DEFAULT_PROVIDER
    allowed = (*REGISTRY, NO_PROVIDER)
    if name not in allowed:
        raise ValidationError(
            "embedding",
            f"chitin.yaml: embedding.provider: unknown provider "
            f"{name!r} (allowed: {', '.join(allowed)})",
        )
    model = section.get("model")
    return Choice(str(name), str(model) if model else None)


def open_semantic(chitin_dir: Path, picked: Choice, env: Mapping[str, str]) -> Semantic:
    """The provider and its sidecar; raises ProviderError when either cannot be had."""
    provider = create(picked.provider, picked.model, env=env, work_folder=chitin_dir / "vectors")
    try:
        store = VectorStore(chitin_dir, identity(provider), provider.dimensions)
    except StoreError as error:
        raise ProviderError(str(error)) from None
    return Semantic(provider, store)
