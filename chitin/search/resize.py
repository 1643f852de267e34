"""A remote model that came to give vectors of another size under the same name.

The sidecar remembers the size of a remote model's vectors (its identity is
``provider:model:size``), so that a session need not ask the endpoint. A model replaced
under its name (another version pulled into Ollama, a server's setting changed) then
answers with vectors of another size, and every embedding fails on the remembered one.
``embed --force`` asks the endpoint again, and the vectors are made anew at its answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from chitin.index.vector_files import held_size
from chitin.providers import create
from chitin.search.semantic import Choice


def changed_size(chitin_dir: Path, picked: Choice, env: Mapping[str, str]) -> int | None:
    """The size of the vectors ``picked``'s endpoint gives now, when it is not the size
    the sidecar holds for that model (one request); None when it is, when the sidecar
    holds none, or when the size goes by the model's name (the local model, a
    provider's own models), which no endpoint is asked."""
    provider = create(picked.provider, picked.model, env=env, work_folder=chitin_dir / "vectors")
    if not getattr(provider, "unsized", False):
        return None
    held = held_size(chitin_dir, provider.name, getattr(provider, "model", ""))
    if held is None:
        return None
    try:
        now = provider.dimensions
    finally:
        client = getattr(provider, "client", None)
        if client is not None:
            client.close()
    return now if now != held else None
