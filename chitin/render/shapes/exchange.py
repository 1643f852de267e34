"""The shapes of what crosses the store's border: sync, export and import, where the
store is, the hooks installed into agent hosts, and Carapace."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from chitin.model.insight import Insight, to_public_dict

if TYPE_CHECKING:
    from chitin.model.interchange import Exported
    from chitin.model.results import Match

    # What shapes read of core's results (core is above render: never imported).
    class _Synced(Protocol):
        remote: str
        branch: str
        received: int
        sent: int
        merge_commit: str | None

    class _Skipped(Protocol):
        @property
        def item(self) -> int: ...
        @property
        def id(self) -> str: ...
        @property
        def reason(self) -> str: ...

    class _Imported(Protocol):
        @property
        def insights(self) -> Sequence[Insight]: ...
        @property
        def skipped(self) -> Sequence[_Skipped]: ...
        @property
        def commit(self) -> str | None: ...
        @property
        def generation(self) -> str | None: ...
        @property
        def history_rows(self) -> int: ...
        @property
        def repeated(self) -> int: ...


# ---------------------------------------------------------------- sync


def synced(result: _Synced) -> dict[str, Any]:
    """sync."""
    return {
        "remote": result.remote,
        "branch": result.branch,
        "received": result.received,
        "sent": result.sent,
        "mergeCommit": result.merge_commit,
    }


# ---------------------------------------------------------------- export, import


def export(rows: Iterable[Exported]) -> list[dict[str, Any]]:
    """export: each insight (with when it was last retrieved, its evidence and history)
    in the interchange shape that import reads back (model/interchange.py owns it)."""
    from chitin.model.interchange import export_dict

    return [export_dict(*row) for row in rows]


def imported(result: _Imported, vectors: Any) -> dict[str, Any]:
    """import."""
    return {
        "imported": len(result.insights),
        "skipped": len(result.skipped),
        "ids": [value.id for value in result.insights],
        "skippedItems": [{"item": s.item, "id": s.id, "reason": s.reason} for s in result.skipped],
        "commit": result.commit,
        "migratedFrom": result.generation,
        "historyRows": result.history_rows,
        "vectors": vectors,
        "repeated": result.repeated,
    }


# ---------------------------------------------------------------- hooks


def where(store: str, source: str, exists: bool) -> dict[str, Any]:
    """where: the store, how it was found (option, environment, folder, default), and
    whether a store is there yet."""
    return {"store": store, "source": source, "exists": exists}


def hook_outcome(host: str, action: str, path: str) -> dict[str, Any]:
    """hooks uninstall (and what hooks install says beside the store)."""
    return {"host": host, "action": action, "path": path}


def hook_installed(host: str, action: str, path: str, store: str | None) -> dict[str, Any]:
    """hooks install: also the store it bound (None: the default one)."""
    return {**hook_outcome(host, action, path), "store": store}


# ---------------------------------------------------------------- Carapace


def carapace_registered(answer: Mapping[str, Any], credentials: str) -> dict[str, Any]:
    """carapace-register: the server's answer (never the key), and where it was saved."""
    return {**answer, "credentialsPath": credentials}


def carapace_answer(answer: Any) -> Any:
    """carapace-query: the server's answer, as it came."""
    return answer


def promoted(insight_id: str, answer: Any) -> dict[str, Any]:
    """promote."""
    return {"chitin": {"id": insight_id}, "carapace": answer}


def carapace_imported(
    made: Insight, conflicts: Sequence[Match], duplicates: Sequence[Match]
) -> dict[str, Any]:
    """import-carapace: 1.4.5's counts, then the stored insights they are (issue 25)."""
    return {
        "carapace": {"id": made.carapace_id},
        "chitin": to_public_dict(made),
        "conflicts": len(conflicts),
        "duplicates": len(duplicates),
        "conflictIds": [m.id for m in conflicts],
        "duplicateIds": [m.id for m in duplicates],
    }
