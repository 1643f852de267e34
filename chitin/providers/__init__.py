"""Embedding providers: the only code that computes vectors or talks to a network.

A provider has ``name``, ``model``, ``dimensions`` and ``embed(texts, kind)``, which
returns one L2-normalised float32 row per text. ``kind`` is "document" for insights
and "query" for what an agent is about to do; providers that tell the two apart (Voyage)
use it. ``create`` builds one by name; HTTP providers take an injected ``httpx.Client``
so tests never reach the network.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from chitin.errors import ChitinError
from chitin.location import xdg_folder

if TYPE_CHECKING:
    import numpy as np

DEFAULT_PROVIDER = "local"

# What a command that someone waits on (a session start, a contribution, similar) may
# spend on an HTTP provider, in all: one request, no retries. Past it the answer is
# given by text, saying why; a hook's own timeout (OpenClaw's 15 s) is never reached.
INTERACTIVE_SECONDS = 5.0
_due: ContextVar[float | None] = ContextVar("chitin_provider_due", default=None)


@contextmanager
def answering(seconds: float = INTERACTIVE_SECONDS, until: float | None = None) -> Iterator[float]:
    """Within it, HTTP providers ask once and give up ``seconds`` from now, or at
    ``until`` (a time.monotonic that an earlier block gave: one wait in two halves);
    never later than a block around it. Gives the moment they give up."""
    end = time.monotonic() + seconds if until is None else until
    outer = _due.get()
    if outer is not None:
        end = min(end, outer)
    token = _due.set(end)
    try:
        yield end
    finally:
        _due.reset(token)


def due() -> float | None:
    """When (time.monotonic) someone waiting needs the answer; None for bulk work."""
    return _due.get()


class ProviderError(ChitinError):
    """The provider could not embed: no key, no network, an HTTP error, a bad answer."""


class ProviderTimeout(ProviderError):
    """No answer within what someone waiting can give (``answering``): slow, not wrong."""


class Provider(Protocol):
    name: str
    model: str

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str], kind: str = "document") -> np.ndarray: ...


def identity(provider: Provider) -> str:
    """``provider:model:dimensions``: vectors from another identity are stale."""
    return f"{provider.name}:{provider.model}:{provider.dimensions}"


Factory = Callable[..., Provider]


def _local(
    model: str | None, env: Mapping[str, str], client: Any, work_folder: Path | None = None
) -> Provider:
    from chitin.providers.local import LocalProvider
    from chitin.providers.resident import settings

    prepared = model_cache(env)
    return LocalProvider(model, work_folder, prepared, settings(env, prepared))


def model_cache(env: Mapping[str, str]) -> Path | None:
    """Where models prepared for this machine are kept: the user's cache folder
    (``$XDG_CACHE_HOME``, else ``~/.cache``), under ``chitin/models``; None without
    either (nothing is prepared then)."""
    home = env.get("HOME")
    base = xdg_folder(env, "XDG_CACHE_HOME") or (Path(home) / ".cache" if home else None)
    return base / "chitin" / "models" if base else None


def _remote(name: str) -> Factory:
    """The factory of the HTTP provider called ``name`` (providers/remote.py: httpx and
    numpy load when one is made, not when the registry is read)."""

    def factory(
        model: str | None, env: Mapping[str, str], client: Any, work_folder: Path | None = None
    ) -> Provider:
        from chitin.providers.remote import HTTP_PROVIDERS

        return HTTP_PROVIDERS[name].from_environment(model, env, client)

    return factory


REGISTRY: dict[str, Factory] = {
    "local": _local,
    "voyage": _remote("voyage"),
    "openai": _remote("openai"),
}


def create(
    name: str,
    model: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    client: Any = None,
    work_folder: Path | None = None,
) -> Provider:
    """The provider called ``name``; ``env`` holds API keys and base URLs, and
    ``work_folder`` is where a local model may keep what speeds up its next load."""
    factory = REGISTRY.get(name)
    if factory is None:
        raise ProviderError(
            f"Unknown embedding provider: {name!r} (allowed: {', '.join(REGISTRY)})"
        )
    return factory(model, env or {}, client, work_folder)
