"""Each MCP tool's call: its arguments checked as the CLI checks its flags, and the work
it returns, which runs on the store's thread and answers with the command's JSON."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chitin import DuplicateError, Query, ValidationError
from chitin.model import arguments as parse
from chitin.model.bounds import MAX_BUDGET, MAX_COUNT, MAX_DAYS
from chitin.model.digest import DEFAULT_CHARACTERS
from chitin.model.fields import EDITABLE
from chitin.model.reflection import display_time, legacy_queue
from chitin.notices import notice
from chitin.render import shapes
from chitin.render.digest import digest_lines, digest_shape

if TYPE_CHECKING:
    from chitin import Chitin, Insight
    from chitin.core.results import Change

Work = Callable[["Chitin"], Any]


def _given(arguments: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The fields among a tool's ``arguments`` that were given: what the CLI's flags
    or ``--json`` would pass on."""
    return {name: arguments[name] for name in names if arguments.get(name) is not None}


def retrieve(
    query: str,
    budget: int,
    max_results: int,
    types: list[str] | None,
    tags: list[str] | None,
    min_confidence: float | None,
    full: bool,
    explain: bool,
) -> Work:
    parse.bounded("budget", budget, MAX_BUDGET)
    parse.bounded("max_results", max_results, MAX_COUNT)
    asked = Query(
        query,
        max_results,
        parse.values(types),
        parse.tags(tags),
        parse.lowest("min_confidence", min_confidence),
        budget,
        full,
    )

    def work(chitin: Chitin) -> dict[str, Any]:
        return shapes.retrieval(chitin.retrieve(asked), explain, full)

    return work


def contribute(force: bool, allow_secret: bool, **arguments: Any) -> Work:
    """``arguments``: the insight's fields that contribute may set (model/fields.py's
    EDITABLE: tools.json names each, tests/test_fields.py holds the two together)."""
    fields = _given(arguments, EDITABLE)

    def work(chitin: Chitin) -> dict[str, Any]:
        try:
            made = chitin.contribute(fields, check=not force, allow_secret=allow_secret)
        except DuplicateError as known:
            raise in_tools_words(known) from None
        return shapes.contribution(
            made.insight,
            made.conflicts,
            made.duplicates,
            made.path,
            made.commit,
            made.degraded,
        )

    return work


def in_tools_words(known: DuplicateError) -> DuplicateError:
    """The refusal of an exact duplicate in the CLI's words, which the tool's failure
    says as the calls an MCP client has (tools.as_parameters): the ``reinforce`` tool
    and contribute's ``force`` parameter. The library's own words name ``check=False``."""
    existing = known.existing
    return DuplicateError(
        existing,
        f"already known as {existing}: run `chitin reinforce {existing}` to strengthen it "
        "(--force writes a second copy anyway)",
    )


def reinforce(id: str, source: str | None, evidence: str | None, allow_secret: bool) -> Work:
    def work(chitin: Chitin) -> dict[str, Any]:
        changed = chitin.reinforce(
            id, source=source, evidence_kind=evidence, allow_secret=allow_secret
        )
        found = chitin.last_retrieved([changed.insight.id])
        return shapes.reinforced(changed.insight, changed.before, found)

    return work


def _shown(chitin: Chitin, insight: Insight) -> dict[str, Any]:
    """One insight's object, with its last retrieval when known (the CLI's JSON)."""
    return shapes.insight(insight, chitin.last_retrieved([insight.id]))


def _changed(chitin: Chitin, done: Change) -> dict[str, Any]:
    """update's and merge's object: ``_shown``'s, with the fields the change dropped or
    cleared (the CLI's JSON)."""
    retrieved = chitin.last_retrieved([done.insight.id])
    return shapes.changed(done.insight, retrieved, done.dropped, done.cleared, done.same)


def similar(claim: str, threshold: float | None, semantic: bool) -> Work:
    checked = parse.threshold(threshold, semantic)

    def work(chitin: Chitin) -> list[dict[str, Any]]:
        found = chitin.similar(claim, checked, semantic=semantic)
        return shapes.similar(found)

    return work


def get(id: str) -> Work:
    return lambda chitin: _shown(chitin, chitin.get(id))


def list_insights(
    types: list[str] | None,
    tags: list[str] | None,
    provenance: str | None,
    min_confidence: float | None,
    archived: bool,
) -> Work:
    floor = parse.lowest("min_confidence", min_confidence)
    wanted = parse.tags(tags)

    def work(chitin: Chitin) -> list[dict[str, Any]]:
        found = chitin.list_insights(
            types=parse.values(types),
            tags=wanted,
            provenance=provenance,
            min_confidence=floor,
            archived=archived,
        )
        return shapes.insights(found, chitin.last_retrieved(i.id for i in found))

    return work


def update(id: str, allow_secret: bool, **arguments: Any) -> Work:
    """``arguments``: the fields to change, as for contribute; an empty list of tags
    clears them."""
    changes = _given(arguments, EDITABLE)
    if arguments.get("tags") == []:
        changes["tags"] = ""  # what clears them, as the CLI's --tags ''

    def work(chitin: Chitin) -> dict[str, Any]:
        return _changed(chitin, chitin.update(id, changes, allow_secret=allow_secret))

    return work


def archive(id: str) -> Work:
    return lambda chitin: _shown(chitin, chitin.archive(id).insight)


def unarchive(id: str) -> Work:
    return lambda chitin: _shown(chitin, chitin.unarchive(id).insight)


def merge(source: str | list[str], target: str, claim: str | None, allow_secret: bool) -> Work:
    """``source``: one id, or a list of them folded in turn (as `chitin merge a b c
    target`, what dedupe suggests)."""

    def work(chitin: Chitin) -> dict[str, Any]:
        merged = chitin.merge(source, target, claim or None, allow_secret=allow_secret)
        return _changed(chitin, merged)

    return work


def history(id: str, limit: int | None) -> Work:
    parse.bounded("limit", limit, MAX_COUNT)

    def work(chitin: Chitin) -> dict[str, Any]:
        insight, entries = chitin.history(id, limit)
        return shapes.history(insight, entries, chitin.last_retrieved([insight.id]))

    return work


def changelog(days: int | None, limit: int) -> Work:
    parse.bounded("days", days, MAX_DAYS)
    parse.bounded("limit", limit, MAX_COUNT)
    return lambda c: shapes.changelog(c.changelog(days, limit))


def reflect(clear: bool, done: str | None) -> Work:
    if done is None:
        return lambda chitin: pending_shape(chitin, clear)
    if clear:  # as `reflect --done` refuses --clear: which one was meant?
        raise ValidationError("done", "done cannot be combined with clear")
    return lambda chitin: shapes.reflected(
        done.strip(), chitin.reflection_done(done, _legacy_queue())
    )


def stats() -> Work:
    return stats_shape


TOOLS: dict[str, Callable[..., Work]] = {
    "retrieve": retrieve,
    "contribute": contribute,
    "reinforce": reinforce,
    "similar": similar,
    "get": get,
    "list": list_insights,
    "update": update,
    "archive": archive,
    "unarchive": unarchive,
    "merge": merge,
    "history": history,
    "changelog": changelog,
    "reflect": reflect,
    "stats": stats,
}


def stats_shape(chitin: Chitin) -> dict[str, Any]:
    counted = chitin.stats()
    return shapes.stats(
        counted.total, counted.by_type, counted.average_confidence, counted.archived
    )


def pending_shape(chitin: Chitin, clear: bool) -> dict[str, Any]:
    """``reflect --format json``: chitin 1.4.5's queue in the home folder included."""

    found = pending(chitin, clear)
    for path, problem in found.problems:
        notice(f"ignored {path}: {problem}")
    made = chitin.reflection_digests(found.markers, DEFAULT_CHARACTERS, cleared=clear)
    digests = [digest_shape(d.marker, d.digest, d.warning, clear) for d in made]
    cleared = found.cleared if clear else None
    return shapes.pending(found.markers, stats_shape(chitin), cleared, digests)


def pending(chitin: Chitin, clear: bool = False) -> Any:
    """The sessions waiting for reflection, as ``chitin reflect`` finds them."""

    return chitin.pending_reflections(_legacy_queue(), clear)


def _legacy_queue() -> Path | None:
    """chitin 1.4.5's queue in the home folder, as `chitin reflect` finds it."""
    return legacy_queue(os.environ)


def pending_text(chitin: Chitin) -> str:
    """The sessions waiting, and the digest of each whose transcript is known: the
    moments quoted from it, the insights it touched, and the ready commands."""
    found = pending(chitin)
    if not found.markers:
        return (
            "No session is waiting for reflection now; reflect on this session, if "
            "anything in it is worth keeping."
        )
    lines = [f"{len(found.markers)} session(s) wait for reflection:"]
    lines += [f"- {m.session_key} ({m.reason}), {display_time(m)}" for m in found.markers]
    for made in chitin.reflection_digests(found.markers, DEFAULT_CHARACTERS):
        if made.digest is not None:
            shown = digest_lines(made.marker, made.digest, made.warning, DEFAULT_CHARACTERS)
            lines += ["", *shown]
    return "\n".join(lines)
