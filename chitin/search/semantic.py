"""Semantic candidates: the vector sidecar kept fresh, and nearest neighbours of a query.

Stale or missing rows are embedded by the command that needs them, only those rows,
as long as they are few (INLINE_LIMIT: what one session start may embed without being
slow). Beyond that the query is answered by text, and the caller has the rest embedded
elsewhere (core/background.py starts a detached ``chitin embed``), so that the next
session is searched by meaning too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from chitin.errors import StoreError, ValidationError
from chitin.index.cache import Cache, Filters
from chitin.index.db import is_damage, is_unwritable
from chitin.index.vector_files import held_size
from chitin.index.vectors import DamagedVectors, Part, SidecarReplaced, VectorStore
from chitin.model.search_text import embedding_texts
from chitin.providers import (
    DEFAULT_PROVIDER,
    REGISTRY,
    Provider,
    ProviderError,
    ProviderTimeout,
    answering,
    create,
    identity,
)
from chitin.providers.minilm import MODEL

# Stale vectors a retrieve embeds itself, with the query: at 176-640 texts a second on
# two cores that is 50-180 ms. A contribution or a hand edit stays under it; an import,
# a migration or a fresh clone goes to the background embedding.
INLINE_LIMIT = 32
NEIGHBOURS = 200
# Insights embedded and saved at a time: a kill loses at most this much work (0.2-0.7 s
# of it), and each save (a flushed matrix, one transaction) costs 2% at 10,000.
CHUNK = 128


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
    gone = [i for i in held if i not in current]
    if gone:
        semantic.vectors.forget(gone)
    stale = sorted(i for i, h in current.items() if force or held.get(i) != h)
    todo = stale if limit is None else stale[:limit]
    insights = cache.by_ids(todo, Filters(archived=None))
    done = 0
    # A few insights (a search's inline refresh) are embedded as plain rows: the resident
    # embedder answers without numpy (§9h). A bulk run keeps its own model and numpy.
    embed = plain_rows if limit is not None and limit <= INLINE_LIMIT else _matrix_of
    for start in range(0, len(todo), CHUNK):
        chunk = [insights[i] for i in todo[start : start + CHUNK] if i in insights]
        parts = [(i.id, text, part) for i in chunk for part, text in enumerate(embedding_texts(i))]
        vectors = embed(semantic, [text for _, text, _ in parts], "document")
        semantic.vectors.put([(i, current[i], part) for i, _, part in parts], vectors)
        done += len(chunk)
        if progress is not None:
            progress(done, len(todo))
    return done, len(stale) - done


def plain_rows(semantic: Semantic, texts: list[str], kind: str) -> list[Sequence[float]]:
    """The texts' vectors as plain rows: the local provider's ``rows`` (the resident
    embedder's, or a few texts at a time in-process), another provider's ``embed``."""
    if not texts:
        return []
    rows = getattr(semantic.provider, "rows", None)
    if rows is not None:
        return list(rows(texts, kind))
    from chitin.providers.minilm import LIGHT_LOAD_TEXTS

    return [
        list(row.tolist() if hasattr(row, "tolist") else row)
        for at in range(0, len(texts), LIGHT_LOAD_TEXTS)
        for row in semantic.provider.embed(texts[at : at + LIGHT_LOAD_TEXTS], kind)
    ]


def _matrix_of(semantic: Semantic, texts: list[str], kind: str) -> Any:
    """The texts' vectors as the provider makes them for bulk work (a numpy matrix)."""
    return semantic.provider.embed(texts, kind)


def adopt(cache: Cache, semantic: Semantic, known: Mapping[Part, bytes]) -> int:
    """Take vectors made elsewhere (little-endian float32 bytes, keyed by insight id,
    the hash of its embedding text and part) for the insights whose text is still that
    text. ``init --seed`` so leaves the starter insights' vectors behind without the
    model. Returns how many insights were given vectors."""
    current = cache.text_hashes(Filters(archived=None))
    held = semantic.vectors.fresh()
    items = [(i, h, p) for (i, h, p) in known if current.get(i) == h and held.get(i) != h]
    if not items:
        return 0
    import numpy as np

    vectors = np.vstack([np.frombuffer(known[item], dtype="<f4") for item in items])
    semantic.vectors.put(items, vectors)
    return len({insight_id for insight_id, _, _ in items})


def waiting(cache: Cache, semantic: Semantic, keep: bool = True) -> int:
    """How many insights lack a current vector; counted once per state of the store
    and the sidecar (a join at 100,000 insights costs ~100 ms). ``keep`` False: the
    count is not noted, for a writer whose own write is about to change the state (the
    note would never be read, and writing it cost the sidecar a transaction, its log's
    syncs and a checkpoint at close: docs/design.md §9k)."""
    vectors = semantic.vectors
    state = f"{cache.generation()}:{vectors.note('generation')}"
    if vectors.note("counted") == state:
        return int(vectors.note("waiting") or 0)
    count = cache.unembedded(vectors.index_path)
    if keep:
        vectors.remember(waiting=str(count), counted=state)
    return count


def nearest(
    cache: Cache,
    semantic: Semantic,
    query: str | None,
    filters: Filters,
    strict: bool = False,
    inline_limit: int = INLINE_LIMIT,
    keep: bool = True,
) -> Nearest:
    """Insights nearest to ``query`` in meaning; on a provider failure, none, and why
    (or, ``strict``, the failure itself). With no ``query``, none: the vectors are
    only brought up to date.

    With more than ``inline_limit`` insights waiting for a vector, none are embedded
    and none are returned: ``unembedded`` says how many wait, and the caller decides
    what happens to them. A damaged sidecar is thrown away, and says so.
    """
    try:
        with answering():  # someone waits: an HTTP provider asks once, briefly
            return _nearest(cache, semantic, query, filters, strict, inline_limit, keep)
    except ProviderError as error:
        if strict:
            raise
        return Nearest([], f"semantic search unavailable ({error}); ranked by text alone", 0)
    except Exception as error:  # only a sidecar that is not sound, or not writable
        if is_unwritable(error) or changed_under(semantic, error):
            said = _unusable(semantic, error)
            if strict:
                raise ProviderError(said) from None
            return Nearest([], f"semantic search unavailable ({said}); ranked by text alone", 0)
        if not (isinstance(error, DamagedVectors) or is_damage(error)):
            raise
        if not isinstance(error, DamagedVectors) and not semantic.vectors.unsound():
            raise  # the cache's damage, not the sidecar's: the cache is rebuilt for it
        # One line says it: the degraded answer's, which names the damage too.
        semantic.vectors.discard(error, said=False)
        return Nearest([], _damaged(error), 0)


def _nearest(
    cache: Cache,
    semantic: Semantic,
    query: str | None,
    filters: Filters,
    strict: bool,
    inline_limit: int,
    keep: bool,
) -> Nearest:
    left = waiting(cache, semantic, keep)
    if left > inline_limit:
        if strict:  # asked for meaning alone (similar --semantic): never an empty answer
            raise ProviderError(f"{left} insight(s) have no vector yet; run `chitin embed` first")
        return Nearest([], None, left)
    if left:
        try:
            refresh(cache, semantic, inline_limit)
        except ProviderTimeout:  # too slow for a session: the background run has the time
            if strict:
                raise
            return Nearest([], None, left)
    return Nearest([] if query is None else _hits(cache, semantic, query, filters), None, 0)


def changed_under(semantic: Semantic, error: Exception) -> bool:
    """Whether ``error`` says another command made the sidecar again while this one
    read it (it found the damage first, or ``.chitin/`` was removed): this command's
    search is by text, the next one's by meaning again (issue 10)."""
    if isinstance(error, SidecarReplaced):
        return True
    vectors = semantic.vectors
    if vectors.replaced():  # whatever it read failed: its index was deleted meanwhile
        return True
    if not isinstance(error, FileNotFoundError) or error.filename is None:
        return False
    return Path(str(error.filename)).parent == vectors.folder  # its matrix, emptied


def _unusable(semantic: Semantic, error: Exception) -> str:
    if changed_under(semantic, error):
        return "the vector sidecar was made again by another command while this one read it"
    return f"the vector sidecar cannot be written ({error})"


def _damaged(error: Exception) -> str:
    """What the degraded answer says of a sidecar found damaged: which file, and why."""
    where = (
        ".chitin/vectors" if isinstance(error, DamagedVectors) else ".chitin/vectors/index.sqlite3"
    )
    return f"{where} was damaged ({error}) and is rebuilt; ranked by text alone"


# What a query that says nothing is remembered as: no query is empty (``retrieve``
# embeds only a query with words), so no real query's neighbours are kept under it.
NOTHING = ""


def said_nothing(cache: Cache, semantic: Semantic, filters: Filters) -> dict[str, float]:
    """Each insight's cosine to a query that says nothing (the empty text), where it is
    among the NEIGHBOURS nearest to it; {} when the provider has no such vector.

    A text of a word or two ("x", "ok") embeds near the centre of the model's space,
    where every query that means little also lands: "zzqx blorf" is 0.32 from "x", above
    any fixed floor that keeps real matches, while the empty query is 0.53 from it and
    about 0 from a real insight. So a query matches an insight in meaning only when it is
    nearer to it than saying nothing is. Hooks repeat it, so it is remembered by state
    like any query (``_hits``), and costs one scan of the vectors per change of store.

    The empty text is never embedded (an OpenAI-compatible endpoint refuses it): the
    local model's vector of it is packaged (``LocalProvider.said_nothing``), and another
    provider's model has none, so its matches have no floor but MIN_SIMILARITY's."""
    nothing = getattr(semantic.provider, "said_nothing", None)
    if nothing is None:
        return {}
    try:
        return dict(_hits(cache, semantic, NOTHING, filters, nothing))
    except ProviderError:
        return {}
    except (SidecarReplaced, FileNotFoundError) as error:
        if not changed_under(semantic, error):
            raise
        return {}


def _hits(
    cache: Cache,
    semantic: Semantic,
    query: str,
    filters: Filters,
    given: Callable[[], Sequence[float]] | None = None,
) -> list[tuple[str, float]]:
    """The nearest rows to ``query`` (whose vector ``given`` gives, when it is not to be
    embedded). Hooks repeat the same query; while nothing changed, so does its answer,
    and it is given without the model, numpy or a scan of the vectors."""
    if given is None and not query.strip():  # no text without words is ever embedded
        return []
    vectors = semantic.vectors
    state = f"{cache.generation()}:{vectors.note('generation')}:{filters!r}"
    hits = vectors.known_hits(query, state)
    if hits is not None:
        return hits
    vector: Sequence[float] | None = given() if given is not None else vectors.cached_query(query)
    if vector is None:
        vector = plain_rows(semantic, [query], "query")[0]
        vectors.cache_query(query, vector, time.time_ns())
    rows = vectors.known_rows(state)
    if rows is None:
        rows = cache.current_vector_rows(vectors.index_path, filters)
        vectors.keep_rows(state, rows)
    hits = vectors.nearest(vector, rows, NEIGHBOURS)
    vectors.keep_hits(query, state, hits)
    return hits


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
    name = section.get("provider")
    allowed = (*REGISTRY, NO_PROVIDER)
    if isinstance(name, str) and not name.strip():  # written, but empty: not "local"
        raise ValidationError(
            "embedding",
            f"chitin.yaml: embedding.provider is empty; name one of {', '.join(allowed)}, "
            "or remove the line for the default (local)",
        )
    name = name or DEFAULT_PROVIDER
    if name not in allowed:
        raise ValidationError(
            "embedding",
            f"chitin.yaml: embedding.provider: unknown provider "
            f"{name!r} (allowed: {', '.join(allowed)})",
        )
    model = section.get("model")
    if isinstance(model, str) and not model.strip():  # written, but empty: not the default
        raise ValidationError(
            "embedding",
            "chitin.yaml: embedding.model is empty; name the provider's model, or remove "
            "the line for its own",
        )
    if model is not None and not isinstance(model, str):
        raise ValidationError(
            "embedding",
            f"chitin.yaml: embedding.model must be a model's name (a text), got {model!r}",
        )
    if name == "local" and model and str(model) != MODEL:  # what create() would refuse
        raise ValidationError(
            "embedding",
            f"chitin.yaml: embedding.model: the local provider has one model, {MODEL}; "
            f"got {str(model)!r}",
        )
    return Choice(str(name), str(model) if model else None)


def open_semantic(
    chitin_dir: Path, picked: Choice, env: Mapping[str, str], size: int | None = None
) -> Semantic:
    """The provider and its sidecar; raises ProviderError when either cannot be had.
    ``size``: the remote model's vectors' size as its endpoint gave it just now (see
    resize.py), rather than as the sidecar remembers it."""
    provider = create(picked.provider, picked.model, env=env, work_folder=chitin_dir / "vectors")
    if getattr(provider, "unsized", False):  # a remote model of unknown size: asked once
        size = size or held_size(chitin_dir, provider.name, provider.model)
        if size is not None:
            provider.sized(size)  # type: ignore[attr-defined]

    def trial() -> object:  # before the vectors of another provider are dropped
        return provider.embed(["a trial text"], "document")

    try:
        store = VectorStore(chitin_dir, identity(provider), provider.dimensions, trial)
    except StoreError as error:
        raise ProviderError(str(error)) from None
    return Semantic(provider, store)
