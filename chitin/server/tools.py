"""The MCP tools: one per command an agent uses, answering with that command's JSON
(``chitin <command> --format json``) and failing with its one-line messages.

The schema of each tool says what its arguments may be (types, allowed values,
ranges); chitin itself checks them, as it checks the CLI's flags, so that an agent
reads the same message a person would (``Error: confidence must be between 0 and 1,
got 2``). The SDK checks only the JSON types (see app.py for how it words those).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from chitin.errors import ValidationError
from chitin.model.bounds import MAX_BUDGET, MAX_COUNT, MAX_DAYS
from chitin.model.insight import EVIDENCE_KINDS, PROVENANCES, TYPES

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from chitin import Chitin
    from chitin.server.worker import StoreWorker

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADDS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
SETS = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
RESTORES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
FOLDS = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)


def _one_of(values: tuple[str, ...], description: str) -> Any:
    return Field(description=description, json_schema_extra={"enum": list(values)})


def _many_of(values: tuple[str, ...], description: str) -> Any:
    return Field(description=description, json_schema_extra={"items": {"enum": list(values)}})


def _range(low: float, high: float, description: str) -> Any:
    return Field(description=description, json_schema_extra={"minimum": low, "maximum": high})


# The arguments several tools share.
Id = Annotated[str, Field(description="The insight's id, or any unique prefix of it.")]
Confidence = Annotated[float, _range(0, 1, "How sure, from 0 to 1.")]
Tags = Annotated[list[str], Field(description='Tags, such as ["testing", "git"].')]
Types = Annotated[list[str], _many_of(TYPES, "Only insights of these types.")]
Provenance = Annotated[str, _one_of(PROVENANCES, "How it was learned.")]
AllowSecret = Annotated[
    bool,
    Field(description="Write text that looks like a credential anyway (refused without it)."),
]


def check_range(name: str, value: int | None, high: int) -> int | None:
    """The CLI's bound on a count or budget, with click's wording."""
    if value is not None and not 1 <= value <= high:
        raise ValidationError(
            name, f"Invalid value for '{name}': {value} is not in the range 1<=x<={high}."
        )
    return value


async def answer(worker: StoreWorker, work: Callable[[Chitin], Any]) -> CallToolResult:
    """``work`` on the store's thread, as a tool's result: the JSON as the command prints
    it (and as structured content), with chitin's warnings in a second block; a failure
    is the command's error line."""
    from chitin.render.failures import describe

    try:
        value, warnings = await worker.run(work)
    except Exception as error:
        message, _ = describe(error)
        return failure(f"{getattr(error, 'prefix', 'Error')}: {message}")
    texts = [
        json.dumps(value, indent=2, ensure_ascii=False),
        *(["\n".join(warnings)] * bool(warnings)),
    ]
    content: list[Any] = [TextContent(type="text", text=text) for text in texts]
    structured = value if isinstance(value, dict) else {"result": value}
    return CallToolResult(content=content, structured_content=structured)


def failure(line: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=line)], is_error=True)


def register(server: MCPServer[Any], worker: StoreWorker) -> None:
    """Add every tool to ``server``."""
    for tool, hints, name in _tools(worker):
        server.add_tool(tool, name=name, annotations=hints, structured_output=False)


def _tools(worker: StoreWorker) -> list[tuple[Callable[..., Any], ToolAnnotations, str]]:
    from chitin.render import shapes

    async def retrieve(
        query: Annotated[str, Field(description="What you are about to do, in your words.")],
        budget: Annotated[
            int, _range(1, MAX_BUDGET, "Most tokens the context may take (~4 characters each).")
        ] = 2000,
        max_results: Annotated[int, _range(1, MAX_COUNT, "Most insights to consider.")] = 15,
        types: Types | None = None,
        tags: Annotated[
            list[str] | None, Field(description="Only insights with any of these.")
        ] = None,
        min_confidence: Annotated[
            float | None, _range(0, 1, "Only insights this confident.")
        ] = None,
        full: Annotated[
            bool, Field(description="Give each insight's context, reasoning and limitations.")
        ] = False,
        explain: Annotated[bool, Field(description="Give every factor of every score.")] = False,
    ) -> CallToolResult:
        """The insights that matter for what you are about to do, best first, within a
        token budget. Call it at the start of a task, describing the task. `context` is
        the text to read (grouped by type); `insights` lists their ids and scores, which
        `reinforce`, `update` and `get` take. Follow the triggers whose situation fits."""
        from chitin import Query
        from chitin.model.insight import check_confidence, parse_tags
        from chitin.render import budget as marshalling

        asked = Query(
            query,
            check_range("max_results", max_results, MAX_COUNT) or 15,
            tuple(types or ()),
            parse_tags(tags),
            check_confidence(min_confidence) if min_confidence is not None else None,
            check_range("budget", budget, MAX_BUDGET) or 2000,
        )

        def work(chitin: Chitin) -> dict[str, Any]:
            found = chitin.retrieve(asked)
            packed = marshalling.pack([r.insight for r in found.ranked], asked.budget, full)
            return shapes.retrieval(found, packed, explain)

        return await answer(worker, work)

    async def contribute(
        type: Annotated[str, _one_of(TYPES, "The kind of insight.")],
        claim: Annotated[str, Field(description="The insight itself: one sentence of guidance.")],
        confidence: Confidence,
        reasoning: Annotated[str | None, Field(description="How you arrived at it.")] = None,
        context: Annotated[str | None, Field(description="When it applies.")] = None,
        limitations: Annotated[str | None, Field(description="When it breaks down.")] = None,
        tags: Tags | None = None,
        source: Annotated[str | None, Field(description="The experience it came from.")] = None,
        provenance: Provenance | None = None,
        condition: Annotated[
            str | None, Field(description='Triggers only: the situation ("when …").')
        ] = None,
        avoid: Annotated[
            bool | None, Field(description="Triggers only: the claim is what not to do.")
        ] = None,
        force: Annotated[
            bool, Field(description="Skip the check for duplicates and conflicts.")
        ] = False,
        allow_secret: AllowSecret = False,
    ) -> CallToolResult:
        """Record a lesson you learned as a new insight (one git commit). Check with
        `similar` first: if it is already known, `reinforce` that one instead. The answer
        lists stored insights it duplicates or conflicts with: merge a duplicate into the
        known one, and resolve a conflict (update, merge or archive one of them). Never
        put secrets, credentials or private data in an insight."""
        given = {
            "type": type,
            "claim": claim,
            "confidence": confidence,
            "reasoning": reasoning,
            "context": context,
            "limitations": limitations,
            "tags": tags,
            "source": source,
            "provenance": provenance,
            "condition": condition,
            "avoid": avoid,
        }
        fields = {k: v for k, v in given.items() if v is not None}

        def work(chitin: Chitin) -> dict[str, Any]:
            made = chitin.contribute(fields, check=not force, allow_secret=allow_secret)
            return shapes.contribution(
                made.insight, made.conflicts, made.duplicates, made.path, made.commit
            )

        return await answer(worker, work)

    async def reinforce(
        id: Id,
        source: Annotated[str | None, Field(description="What confirmed it.")] = None,
        evidence: Annotated[
            str | None,
            _one_of(
                EVIDENCE_KINDS,
                "external: a result or another person confirmed it; internal: your own "
                "check; social: someone said so.",
            ),
        ] = None,
        allow_secret: AllowSecret = False,
    ) -> CallToolResult:
        """Record that experience confirmed an insight: its confidence rises by 5% of the
        distance to 1 and its count goes up (one git commit)."""

        def work(chitin: Chitin) -> dict[str, Any]:
            changed = chitin.reinforce(
                id, source=source, evidence_kind=evidence, allow_secret=allow_secret
            )
            return shapes.insight(changed.insight)

        return await answer(worker, work)

    async def similar(
        claim: Annotated[str, Field(description="The claim to compare with the stored ones.")],
        threshold: Annotated[
            float | None,
            _range(0, 1, "Lowest similarity to give (default 0.2 in words, 0.5 in meaning)."),
        ] = None,
        semantic: Annotated[
            bool, Field(description="Compare meaning (embeddings) instead of shared words.")
        ] = False,
    ) -> CallToolResult:
        """Stored insights close to a claim: by shared words (Jaccard), or with
        `semantic`, by meaning. Ask before you contribute, to find what is already known."""
        from chitin.model.insight import check_confidence

        floor = (0.5 if semantic else 0.2) if threshold is None else threshold
        try:
            checked = check_confidence(floor)
        except ValidationError:
            raise ValidationError(
                "threshold", f"threshold must be a number from 0 to 1, got {floor!r}"
            ) from None

        def work(chitin: Chitin) -> list[dict[str, Any]]:
            found = (chitin.similar_meaning if semantic else chitin.similar)(claim, checked)
            return shapes.similar(found)

        return await answer(worker, work)

    async def get(id: Id) -> CallToolResult:
        """One insight, live or archived, with every field."""
        return await answer(worker, lambda chitin: shapes.insight(chitin.get(id)))

    async def list_insights(
        types: Types | None = None,
        tags: Annotated[
            list[str] | None, Field(description="Only insights with any of these.")
        ] = None,
        provenance: Provenance | None = None,
        min_confidence: Annotated[
            float | None, _range(0, 1, "Only insights this confident.")
        ] = None,
        archived: Annotated[bool, Field(description="List archived insights instead.")] = False,
    ) -> CallToolResult:
        """Insights, newest first; the filters combine."""
        from chitin.model.insight import check_confidence, parse_tags

        floor = check_confidence(min_confidence) if min_confidence is not None else None
        wanted = parse_tags(tags)

        def work(chitin: Chitin) -> list[dict[str, Any]]:
            found = chitin.list_insights(
                types=tuple(types or ()),
                tags=wanted,
                provenance=provenance or None,
                min_confidence=floor,
                archived=archived,
            )
            return shapes.insights(found)

        return await answer(worker, work)

    async def update(
        id: Id,
        type: Annotated[str | None, _one_of(TYPES, "A new type (moves the file).")] = None,
        claim: Annotated[str | None, Field(description="A new claim.")] = None,
        confidence: Annotated[float | None, _range(0, 1, "A new confidence.")] = None,
        reasoning: Annotated[str | None, Field(description="New reasoning; '' clears it.")] = None,
        context: Annotated[str | None, Field(description="New context; '' clears it.")] = None,
        limitations: Annotated[
            str | None, Field(description="New limitations; '' clears them.")
        ] = None,
        tags: Annotated[list[str] | None, Field(description="New tags; [] clears them.")] = None,
        source: Annotated[str | None, Field(description="New source; '' clears it.")] = None,
        provenance: Annotated[
            str | None, _one_of((*PROVENANCES, ""), "New provenance; '' clears it.")
        ] = None,
        condition: Annotated[str | None, Field(description="Triggers: a new condition.")] = None,
        avoid: Annotated[
            bool | None, Field(description="Triggers: avoid (true) or do (false) the action.")
        ] = None,
        allow_secret: AllowSecret = False,
    ) -> CallToolResult:
        """Change fields of an insight (one git commit; none if nothing changes). Sharpen
        its context or limitations when it misled you once; lower its confidence when
        it proved less sure."""
        given = {
            "type": type,
            "claim": claim,
            "confidence": confidence,
            "reasoning": reasoning,
            "context": context,
            "limitations": limitations,
            "tags": tags,
            "source": source,
            "provenance": provenance,
            "condition": condition,
            "avoid": avoid,
        }
        changes = {k: v for k, v in given.items() if v is not None}
        if tags == []:
            changes["tags"] = ""  # what clears them, as the CLI's --tags ''

        def work(chitin: Chitin) -> dict[str, Any]:
            return shapes.insight(chitin.update(id, changes, allow_secret=allow_secret).insight)

        return await answer(worker, work)

    async def archive(id: Id) -> CallToolResult:
        """Retire an insight that is wrong or obsolete: its file moves to archive/ and it
        is no longer retrieved (`unarchive` brings it back; its history stays)."""
        return await answer(worker, lambda chitin: shapes.insight(chitin.archive(id).insight))

    async def unarchive(id: Id) -> CallToolResult:
        """Bring an archived insight back, to be retrieved again."""
        return await answer(worker, lambda chitin: shapes.insight(chitin.unarchive(id).insight))

    async def merge(
        source: Annotated[str, Field(description="The insight to fold in; it is deleted.")],
        target: Annotated[str, Field(description="The insight that stays.")],
        claim: Annotated[str | None, Field(description="A new claim for the merged one.")] = None,
        allow_secret: AllowSecret = False,
    ) -> CallToolResult:
        """Fold a duplicate (`source`) into the insight that stays (`target`), in one
        commit: the target keeps the higher confidence, all tags, both reasonings and
        the sum of reinforcements."""

        def work(chitin: Chitin) -> dict[str, Any]:
            merged = chitin.merge(source, target, claim or None, allow_secret=allow_secret)
            return shapes.insight(merged.insight)

        return await answer(worker, work)

    async def history(
        id: Id,
        limit: Annotated[int | None, _range(1, MAX_COUNT, "Only the newest N commits.")] = None,
    ) -> CallToolResult:
        """How an insight changed, oldest first, from git log (hand edits included)."""
        check_range("limit", limit, MAX_COUNT)

        def work(chitin: Chitin) -> dict[str, Any]:
            insight, entries = chitin.history(id, limit)
            return shapes.history(insight, entries)

        return await answer(worker, work)

    async def changelog(
        days: Annotated[int | None, _range(1, MAX_DAYS, "Only the last N days.")] = None,
        limit: Annotated[int, _range(1, MAX_COUNT, "At most N changes.")] = 20,
    ) -> CallToolResult:
        """The newest changes across the store, newest first, from git log."""
        check_range("days", days, MAX_DAYS)
        check_range("limit", limit, MAX_COUNT)
        return await answer(worker, lambda c: shapes.changelog(c.changelog(days, limit)))

    async def reflect(
        clear: Annotated[
            bool, Field(description="Empty the queue after listing it (when you are done).")
        ] = False,
    ) -> CallToolResult:
        """The sessions that ended and wait for reflection, with the store's counts. For
        each: what went well, what were you corrected on, what did you do twice? Then
        contribute what is new, reinforce what was confirmed, and call `reflect` with
        `clear` (the `reflect` prompt walks you through it)."""
        return await answer(worker, lambda chitin: pending_shape(chitin, clear))

    async def stats() -> CallToolResult:
        """How many insights of each type the store holds, their average confidence, and
        how many are archived."""
        return await answer(worker, stats_shape)

    return [
        (retrieve, READ, "retrieve"),
        (contribute, ADDS, "contribute"),
        (reinforce, ADDS, "reinforce"),
        (similar, READ, "similar"),
        (get, READ, "get"),
        (list_insights, READ, "list"),
        (update, SETS, "update"),
        (archive, SETS, "archive"),
        (unarchive, RESTORES, "unarchive"),
        (merge, FOLDS, "merge"),
        (history, READ, "history"),
        (changelog, READ, "changelog"),
        (reflect, SETS, "reflect"),
        (stats, READ, "stats"),
    ]


def stats_shape(chitin: Chitin) -> dict[str, Any]:
    from chitin.render import shapes

    counted = chitin.stats()
    return shapes.stats(
        counted.total, counted.by_type, counted.average_confidence, counted.archived
    )


def pending_shape(chitin: Chitin, clear: bool) -> dict[str, Any]:
    """``reflect --format json``: chitin 1.4.5's queue in the home folder included."""
    from chitin.notices import notice
    from chitin.render import shapes

    found = pending(chitin, clear)
    for path, problem in found.problems:
        notice(f"ignored {path}: {problem}")
    return shapes.pending(found.markers, stats_shape(chitin), found.cleared if clear else None)


def pending(chitin: Chitin, clear: bool = False) -> Any:
    """The sessions waiting for reflection, as ``chitin reflect`` finds them."""
    from pathlib import Path

    from chitin.model.reflection import LEGACY_QUEUE

    return chitin.pending_reflections(Path.home() / LEGACY_QUEUE, clear)
