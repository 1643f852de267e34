"""chitin: personality persistence for AI agents, kept as Markdown files in git.

Use it from Python::

    from chitin import Chitin

    with Chitin(store="my-personality") as chitin:
        chitin.init()  # makes the folder a store, a git repository (idempotent)
        chitin.contribute(
            {"type": "skill", "claim": "Run the tests before pushing.", "confidence": 0.8}
        )
        found = chitin.retrieve("push a branch")

The names below load on first use, so ``import chitin`` (and ``chitin --version``)
stays cheap.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: the console script's start imports no typing (~3 ms)

__version__ = "0.2.0"

if TYPE_CHECKING:
    from typing import Any

if TYPE_CHECKING:
    from chitin.core.agent import Pending, SessionDigest
    from chitin.core.background import Prepared, run_embed_worker
    from chitin.core.carapace import (
        CarapaceQuestion,
        NotPromotable,
        Promotion,
        Registration,
        carapace_credentials_path,
    )
    from chitin.core.carapace import Imported as ImportedContribution
    from chitin.core.check import Report
    from chitin.core.claude_session import claude_code_reflect, claude_code_session_start
    from chitin.core.diff import PersonalityDiff, RenderedDiff
    from chitin.core.embedding import provider_names
    from chitin.core.facade import Chitin
    from chitin.core.hooks import install_hook, uninstall_hook
    from chitin.core.interop import Imported
    from chitin.core.lifecycle import Change, Contribution, Deduped
    from chitin.core.personality import Personality
    from chitin.core.reading import Stats
    from chitin.core.results import Initialized
    from chitin.core.retrieving import Query
    from chitin.core.sync import Synced
    from chitin.core.writes import Unmergeable, merge_file, output_target, write_output
    from chitin.errors import (
        AmbiguousIdError,
        ChitinError,
        DuplicateError,
        GitError,
        NotFoundError,
        StateError,
        StoreError,
        ValidationError,
    )
    from chitin.index.queries import Problem
    from chitin.model.history import Entry
    from chitin.model.insight import Insight
    from chitin.model.interchange import Exported
    from chitin.model.quality import QualityReport, QualityScore
    from chitin.model.reflection import Marker, Where
    from chitin.model.results import Candidate, Ranked, Retrieval
    from chitin.search.semantic import Semantic

# Each public name, and the module that defines it.
_EXPORTS = {
    "Chitin": "chitin.core.facade",
    "Change": "chitin.core.lifecycle",
    "Contribution": "chitin.core.lifecycle",
    "Deduped": "chitin.core.lifecycle",
    "Personality": "chitin.core.personality",
    "Query": "chitin.core.retrieving",
    "Stats": "chitin.core.reading",
    "Insight": "chitin.model.insight",
    "Retrieval": "chitin.model.results",
    "Ranked": "chitin.model.results",
    "ChitinError": "chitin.errors",
    "DuplicateError": "chitin.errors",
    "ValidationError": "chitin.errors",
    "NotFoundError": "chitin.errors",
    "AmbiguousIdError": "chitin.errors",
    "StateError": "chitin.errors",
    "StoreError": "chitin.errors",
    "GitError": "chitin.errors",
    # What the methods of Chitin return (and take), each from the module that defines it;
    # "module:name" where the class's own name is taken (two use cases' Imported).
    "Initialized": "chitin.core.results",
    "Report": "chitin.core.check",
    "Synced": "chitin.core.sync",
    "PersonalityDiff": "chitin.core.diff",
    "RenderedDiff": "chitin.core.diff",
    "Entry": "chitin.model.history",
    "Exported": "chitin.model.interchange",
    "Imported": "chitin.core.interop",
    "ImportedContribution": "chitin.core.carapace:Imported",
    "Promotion": "chitin.core.carapace",
    "Registration": "chitin.core.carapace",
    "Prepared": "chitin.core.background",
    "Semantic": "chitin.search.semantic",
    "Problem": "chitin.index.queries",
    "QualityScore": "chitin.model.quality",
    "QualityReport": "chitin.model.quality",
    "Candidate": "chitin.model.results",
    "Marker": "chitin.model.reflection",
    "Where": "chitin.model.reflection",
    "Pending": "chitin.core.agent",
    "SessionDigest": "chitin.core.agent",
    # What front ends need beside a store: hook installers, Carapace's credentials and
    # question, the writer of files outside the store, the merge driver's merge.
    "install_hook": "chitin.core.hooks",
    "uninstall_hook": "chitin.core.hooks",
    "carapace_credentials_path": "chitin.core.carapace",
    "CarapaceQuestion": "chitin.core.carapace",
    "NotPromotable": "chitin.core.carapace",
    "output_target": "chitin.core.writes",
    "write_output": "chitin.core.writes",
    "merge_file": "chitin.core.writes",
    "Unmergeable": "chitin.core.writes",
    "provider_names": "chitin.core.embedding",
    # Run by hosts and by chitin itself, each with an opened Chitin: Claude Code's hooks,
    # and the detached background embedding a session start sets off.
    "claude_code_session_start": "chitin.core.claude_session",
    "claude_code_reflect": "chitin.core.claude_session",
    "run_embed_worker": "chitin.core.background",
}

__all__ = [
    "AmbiguousIdError",
    "Candidate",
    "CarapaceQuestion",
    "Change",
    "Chitin",
    "ChitinError",
    "Contribution",
    "Deduped",
    "DuplicateError",
    "Entry",
    "Exported",
    "GitError",
    "Imported",
    "ImportedContribution",
    "Initialized",
    "Insight",
    "Marker",
    "NotFoundError",
    "NotPromotable",
    "Pending",
    "Personality",
    "PersonalityDiff",
    "Prepared",
    "Problem",
    "Promotion",
    "QualityReport",
    "QualityScore",
    "Query",
    "Ranked",
    "Registration",
    "RenderedDiff",
    "Report",
    "Retrieval",
    "Semantic",
    "SessionDigest",
    "StateError",
    "Stats",
    "StoreError",
    "Synced",
    "Unmergeable",
    "ValidationError",
    "Where",
    "__version__",
    "carapace_credentials_path",
    "claude_code_reflect",
    "claude_code_session_start",
    "install_hook",
    "merge_file",
    "output_target",
    "provider_names",
    "run_embed_worker",
    "uninstall_hook",
    "write_output",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'chitin' has no attribute {name!r}")
    module, _, defined = module.partition(":")
    value = getattr(importlib.import_module(module), defined or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
