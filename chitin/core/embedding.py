"""Embedding: vectors of the insights for semantic search, made by the configured
provider (chitin.yaml's ``embedding``), and how many are current."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from chitin.core.session import Session
from chitin.errors import StoreError, ValidationError
from chitin.index.vector_files import (
    drop_kept,
    put_back,
    restore_kept,
    set_aside,
    stored_identity,
    switch_under_way,
)
from chitin.lockfile import derived_folder
from chitin.providers import DEFAULT_PROVIDER, REGISTRY, ProviderError
from chitin.search import resize, semantic
from chitin.store.messages import embedding_words, worded

if TYPE_CHECKING:
    from chitin.index.cache import Progress
    from chitin.search import semantic


class Embedding:
    """The vectors of one store's insights (``chitin.Chitin`` holds one)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def embed(
        self,
        provider: str | None = None,
        model: str | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> tuple[semantic.Semantic, int]:
        """Embed every insight lacking a current vector (all with ``force``). A provider
        or model named here is recorded in chitin.yaml, in one commit. Returns the
        model used and how many insights it embedded."""

        current = semantic.choice(self.session.store.config())
        picked = semantic.Choice(
            provider or current.provider, model if model else (None if provider else current.model)
        )
        if not provider and picked.provider == semantic.NO_PROVIDER:  # create(): "unknown"
            raise ValidationError(
                "provider",
                "semantic search is off in chitin.yaml (embedding.provider: none); name a "
                f"provider to embed with: chitin embed --provider {DEFAULT_PROVIDER} "
                f"(allowed: {', '.join(REGISTRY)})",
            )
        chitin_dir = derived_folder(self.session.root)
        restore_kept(chitin_dir)  # left by a switch that was killed: the store's own
        if switch_under_way(chitin_dir) is not None:  # its half-made vectors are its own
            raise StoreError(
                "a switch of embedding provider is under way (chitin embed --provider): "
                "run chitin embed again once it completes"
            )
        self._resize(chitin_dir, picked, force)
        _, held = stored_identity(chitin_dir)
        # Another provider's vectors are set aside until this one's are all made: a
        # provider that passed the trial and failed later cost the store its vectors.
        kept = set_aside(chitin_dir) if held and _switches(held, picked) else None
        try:
            meaning = self.session.semantic(picked)
            done, _ = semantic.refresh(self.session.cache, meaning, None, progress, force)
        except BaseException as error:
            if kept is None:
                raise
            self.session.close()  # the new sidecar released before it is dropped
            put_back(chitin_dir, kept.folder)
            kept.release()
            if isinstance(error, ProviderError):
                name = "/".join(str(held).split(":")[:2])
                raise ProviderError(f"{error}; the vectors of {name} are kept") from None
            raise
        if kept is not None:
            drop_kept(kept.folder)
            kept.release()
        # Recorded once the provider has answered: recorded first, an endpoint that
        # failed (refused, 401, 500) left the store committed to it, and every session
        # start after fell back to text.
        if picked != current and (provider or model):
            self._record_choice(picked)
        prepare = getattr(meaning.provider, "prepare", None)
        if callable(prepare):  # the local model, made quick to load for session starts
            prepare()
        return meaning, done

    def _resize(self, chitin_dir: Path, picked: semantic.Choice, force: bool) -> None:
        """With ``force``, when ``picked``'s remote model now gives vectors of another
        size than the sidecar's, the sidecar takes the new size (after a trial embedding
        at it): its vectors are of no use to the model as it is; all are made anew."""
        if not force:  # one request to the endpoint, made only when asked to redo all
            return
        size = resize.changed_size(chitin_dir, picked, self.session.env)
        if size is None:
            return
        self.session.close()  # its vectors, opened at the old size, are opened anew
        semantic.close(semantic.open_semantic(chitin_dir, picked, self.session.env, size))

    def warm(self) -> None:
        """Have ready what a retrieval needs, before it is asked (a server between
        requests): the cache in step, and a local embedding model loaded. Nothing is
        embedded or written; a provider that cannot be had is left to the retrieval
        that meets it, which says so."""

        if self.session.missing:
            return
        self.session.cache  # noqa: B018 - opened and synced
        picked = semantic.choice(self.session.store.config())
        if picked.provider == semantic.NO_PROVIDER:
            return
        try:
            warm = getattr(self.session.semantic(picked).provider, "warm", None)
            if callable(warm):  # the local model; a remote one has nothing to load
                warm()
        except ProviderError:
            return

    def adopt_vectors(self, known: Mapping[tuple[str, str, int], bytes]) -> int:
        """Take vectors of the local model made elsewhere (see semantic.adopt), when the
        local model is the one configured."""

        picked = semantic.choice(self.session.store.config())
        if self.session.missing or not known or picked.provider != DEFAULT_PROVIDER:
            return 0
        return semantic.adopt(self.session.cache, self.session.semantic(picked), known)

    def unembedded(self) -> int:
        """How many insights wait for a vector of the configured provider."""

        picked = semantic.choice(self.session.store.config())
        if self.session.missing or picked.provider == semantic.NO_PROVIDER:
            return 0
        return semantic.waiting(self.session.cache, self.session.semantic(picked))

    def embed_status(self) -> tuple[int, int, str | None]:
        """(live insights, those with a current vector, the sidecar's identity)."""
        if self.session.missing:
            return 0, 0, None

        current = self.session.cache.text_hashes()
        held, name = stored_identity(self.session.root / ".chitin")
        fresh = sum(1 for i, h in current.items() if held.get(i) == h)
        return len(current), fresh, name

    def _record_choice(self, picked: semantic.Choice) -> None:

        chosen = {k: v for k, v in picked._asdict().items() if v}
        words = embedding_words(picked.provider, picked.model)
        self.session.store.set_config("embedding", chosen, worded(words, {}))


def _switches(held: str, picked: semantic.Choice) -> bool:
    """Whether ``picked`` embeds with another provider or model than the sidecar's
    identity (``provider:model:dimensions``); the same provider without a model named
    is left to the sidecar's trial embedding."""
    provider, _, rest = held.partition(":")
    model = rest.rpartition(":")[0]
    return provider != picked.provider or (picked.model is not None and model != picked.model)


def provider_names() -> tuple[str, ...]:
    """The embedding providers a store may choose (chitin.yaml, ``embed --provider``)."""

    return tuple(REGISTRY)
