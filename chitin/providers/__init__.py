"""Embedding providers: the only code that computes vectors or talks to a network.

A provider has ``name``, ``model``, ``dimensions`` and ``embed(texts, kind)``, which
returns one L2-normalised float32 row per text. ``kind`` is "document" for insights
and "query" for what an agent is about to do; providers that tell the two apart (Voyage)
use it. ``create`` builds one by name; HTTP providers take an injected ``httpx.Client``
so tests never reach the network.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from chitin.errors import ChitinError

if TYPE_CHECKING:
    import numpy as np

DEFAULT_PROVIDER = "local"


class ProviderError(ChitinError):
    """The provider could not embed: no key, no network, an HTTP error, a bad answer."""


class Provider(Protocol):
    name: str
    model: str

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str], kind: str = "document") -> np.ndarray: ...


def normalized(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (cosine similarity is then a dot product), as float32."""
    import numpy as np

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    result: np.ndarray = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return result


def identity(provider: Provider) -> str:
    """``provider:model:dimensions``: vectors from another identity are stale."""
    return f"{provider.name}:{provider.model}:{provider.dimensions}"


Factory = Callable[..., Provider]


def _local(
    model: str | None, env: Mapping[str, str], client: Any, work_folder: Path | None = None
) -> Provider:
    from chitin.providers.local import LocalProvider

    return LocalProvider(model, work_folder, model_cache(env))


def model_cache(env: Mapping[str, str]) -> Path | None:
    """Where models prepared for this machine are kept: the user's cache folder
    (``$XDG_CACHE_HOME``, else ``~/.cache``), under ``chitin/models``; None without
    either (nothing is prepared then)."""
    base = env.get("XDG_CACHE_HOME") or (
        str(Path(env["HOME"]) / ".cache") if env.get("HOME") else None
    )
    return Path(base) / "chitin" / "models" if base else None


def _voyage(
    model: str | None, env: Mapping[str, str], client: Any, work_folder: Path | None = None
) -> Provider:
    from chitin.providers.remote import VoyageProvider

    return VoyageProvider.from_environment(model, env, client)


def _openai(
    model: str | None, env: Mapping[str, str], client: Any, work_folder: Path | None = None
) -> Provider:
    from chitin.providers.remote import OpenAIProvider

    return OpenAIProvider.from_environment(model, env, client)


REGISTRY: dict[str, Factory] = {"local": _local, "voyage": _voyage, "openai": _openai}


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
