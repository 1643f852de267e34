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


def _enum(values: tuple[str, ...]) -> Any:
    return Field(json_schema_extra={"enum": list(values)})


def _bounds(low: float, high: float) -> Any:
    return Field(json_schema_extra={"minimum": low, "maximum": high})


def _about(description: str) -> Any:
    return Field(description=description)


# What the arguments may be; the schema says so, chitin checks it (see the doc above).
TypeName = Annotated[str, _enum(TYPES)]
ProvenanceName = Annotated[str, _enum(PROVENANCES)]
EvidenceName = Annotated[str, _enum(EVIDENCE_KINDS)]
Fraction = Annotated[float, _bounds(0, 1)]
Count = Annotated[int, _bounds(1, MAX_COUNT)]
Budget = Annotated[int, _bounds(1, MAX_BUDGET)]
Days = Annotated[int, _bounds(1, MAX_DAYS)]

# The arguments several tools share.
Id = Annotated[str, _about("The insight's id, or any unique prefix of it.")]
Types = Annotated[list[TypeName] | None, _about("Only insights of these types.")]
AnyTags = Annotated[list[str] | None, _about("Only insights with any of these tags.")]
MinConfidence = Annotated[Fraction | None, _about("Only insights at least this confident.")]
AllowSecret = Annotated[
    bool, _about("Write text that looks like a credential anyway (refused without it).")
]


# The arguments of contribute and update that are the insight's fields, by name.
INSIGHT_FIELDS = (
    "type",
    "claim",
    "confidence",
    "reasoning",
    "context",
    "limitations",
    "tags",
    "source",
    "provenance",
    "condition",
    "avoid",
)


def _given(arguments: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The fields among a tool's ``arguments`` (its ``locals()``) that were given: what
    the CLI's flags or ``--json`` would pass on."""
    return {name: arguments[name] for name in names if arguments[name] is not None}


def check_range(name: str, value: int | None, high: int) -> None:
    """The CLI's bound on a count or budget, with click's wording."""
    if value is not None and not 1 <= value <= high:
        raise ValidationError(
            name, f"Invalid value for '{name}': {value} is not in the range 1<=x<={high}."
        )


async def answer(worker: StoreWorker, work: Callable[[Chitin], Any]) -> CallToolResult:
    """``work`` on the store's thread, as a tool's result: the JSON as the command prints
    it (and as structured content), with chitin's warnings in a second block. (A
    failure is worded by app.py, wherever in the tool it is raised.)"""
    value, warnings = await worker.run(work)
    texts = [
        json.dumps(value, indent=2, ensure_ascii=False),
        *(["\n".join(warnings)] * bool(warnings)),
    ]
    content: list[Any] = [TextContent(type="text", text=text) for text in texts]
    structured = value if isinstance(value, dict) else {"result": value}
    return CallToolResult(content=content, structured_content=structured)


def failure(error: BaseException) -> CallToolResult:
    """A tool's failure, in the line the CLI prints for it, and what chitin had to say
    on the way (requests run one at a time, so the notices are this one's)."""
    from chitin.notices import take
    from chitin.render.failures import describe

    message, _ = describe(error)
    texts = [f"{getattr(error, 'prefix', 'Error')}: {message}"]
    if notices := take():
        texts.append("\n".join(f"warning: {line}" for line in notices))
    return CallToolResult(content=[TextContent(type="text", text=t) for t in texts], is_error=True)


def register(server: MCPServer[Any], worker: StoreWorker) -> None:
    """Add every tool to ``server``."""
    for tool, hints, name in _tools(worker):
        server.add_tool(tool, name=name, annotations=hints, structured_output=False)


def _tools(worker: StoreWorker) -> list[tuple[Callable[..., Any], ToolAnnotations, str]]:
    from chitin.render import shapes

    async def retrieve(
        query: Annotated[str, _about("What you are about to do, in your own words.")],
        budget: Annotated[
            Budget, _about("Most tokens the context may take (~4 chars each).")
        ] = 2000,
        max_results: Annotated[Count, _about("Most insights to consider.")] = 15,
        types: Types = None,
        tags: AnyTags = None,
        min_confidence: MinConfidence = None,
        full: Annotated[
            bool, _about("Give each insight's context, reasoning, limitations.")
        ] = False,
        explain: Annotated[bool, _about("Give every factor of every score.")] = False,
    ) -> CallToolResult:
        """The insights that matter for what you are about to do, best first, within a
        token budget. Call it at the start of a task, describing the task. `context` is
        the text to read (grouped by type); `insights` lists their ids and scores, which
        `reinforce`, `update` and `get` take. Follow the triggers whose situation fits."""
        from chitin import Query
        from chitin.model.insight import check_confidence, parse_tags
        from chitin.render import budget as marshalling

        check_range("budget", budget, MAX_BUDGET)
        check_range("max_results", max_results, MAX_COUNT)
        asked = Query(
            query,
            max_results,
            tuple(types or ()),
            parse_tags(tags),
            check_confidence(min_confidence) if min_confidence is not None else None,
            budget,
        )

        def work(chitin: Chitin) -> dict[str, Any]:
            found = chitin.retrieve(asked)
            packed = marshalling.pack([r.insight for r in found.ranked], asked.budget, full)
            return shapes.retrieval(found, packed, explain)

        return await answer(worker, work)

    async def contribute(
        type: Annotated[TypeName, _about("The kind of insight.")],
        claim: Annotated[str, _about("The insight itself: one sentence of guidance.")],
        confidence: Annotated[Fraction, _about("How sure you are, from 0 to 1.")],
        reasoning: Annotated[str | None, _about("How you arrived at it.")] = None,
        context: Annotated[str | None, _about("When it applies.")] = None,
        limitations: Annotated[str | None, _about("When it breaks down.")] = None,
        tags: Annotated[list[str] | None, _about('Tags, such as ["testing", "git"].')] = None,
        source: Annotated[str | None, _about("The experience it came from.")] = None,
        provenance: Annotated[ProvenanceName | None, _about("How it was learned.")] = None,
        condition: Annotated[str | None, _about('Triggers only: the situation ("when …").')] = None,
        avoid: Annotated[bool | None, _about("Triggers only: the claim is what not to do.")] = None,
        force: Annotated[bool, _about("Skip the check for duplicates and conflicts.")] = False,
        allow_secret: AllowSecret = False,
    ) -> CallToolResult:
        """Record a lesson you learned as a new insight (one git commit). Check with
        `similar` first: if it is already known, `reinforce` that one instead. The answer
        lists stored insights it duplicates or conflicts with: merge a duplicate into the
        known one, and resolve a conflict (update, merge or archive one of them). Never
        put secrets, credentials or private data in an insight."""
        fields = _given(locals(), INSIGHT_FIELDS)

        def work(chitin: Chitin) -> dict[str, Any]:
            made = chitin.contribute(fields, check=not force, allow_secret=allow_secret)
            return shapes.contribution(
                made.insight, made.conflicts, made.duplicates, made.path, made.commit
            )

        return await answer(worker, work)

    async def reinforce(
        id: Id,
        source: Annotated[str | None, _about("What confirmed it.")] = None,
        evidence: Annotated[
            EvidenceName | None,
            _about(
                "external: a result or another person confirmed it; internal: your own "
                "check; social: someone said so."
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
        claim: Annotated[str, _about("The claim to compare with the stored ones.")],
        threshold: Annotated[
            Fraction | None, _about("Lowest similarity to give (default 0.2; 0.5 in meaning).")
        ] = None,
        semantic: Annotated[
            bool, _about("Compare meaning (embeddings), not shared words.")
        ] = False,
    ) -> CallToolResult:
        """Stored insights close to a claim: by shared words (Jaccard), or with
        `semantic`, by meaning. Ask before you contribute, to find what is already known."""
        from chitin.model.insight import check_confidence, js_number

        floor = (0.5 if semantic else 0.2) if threshold is None else threshold
        try:
            checked = check_confidence(floor)
        except ValidationError:
            raise ValidationError(
                "threshold", f"threshold must be a number from 0 to 1, got {js_number(floor)}"
            ) from None

        def work(chitin: Chitin) -> list[dict[str, Any]]:
            found = (chitin.similar_meaning if semantic else chitin.similar)(claim, checked)
            return shapes.similar(found)

        return await answer(worker, work)

    async def get(id: Id) -> CallToolResult:
        """One insight, live or archived, with every field."""
        return await answer(worker, lambda chitin: shapes.insight(chitin.get(id)))

    async def list_insights(
        types: Types = None,
        tags: AnyTags = None,
        provenance: Annotated[ProvenanceName | None, _about("Only this provenance.")] = None,
        min_confidence: MinConfidence = None,
        archived: Annotated[bool, _about("List archived insights instead.")] = False,
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
        type: Annotated[TypeName | None, _about("A new type (moves the file).")] = None,
        claim: Annotated[str | None, _about("A new claim.")] = None,
        confidence: Annotated[Fraction | None, _about("A new confidence, from 0 to 1.")] = None,
        reasoning: Annotated[str | None, _about("New reasoning; '' clears it.")] = None,
        context: Annotated[str | None, _about("New context; '' clears it.")] = None,
        limitations: Annotated[str | None, _about("New limitations; '' clears them.")] = None,
        tags: Annotated[list[str] | None, _about("New tags; [] clears them.")] = None,
        source: Annotated[str | None, _about("New source; '' clears it.")] = None,
        provenance: Annotated[
            Annotated[str, _enum((*PROVENANCES, ""))] | None,
            _about("New provenance; '' clears it."),
        ] = None,
        condition: Annotated[str | None, _about("Triggers: a new condition.")] = None,
        avoid: Annotated[
            bool | None, _about("Triggers: avoid (true) or do (false) the action.")
        ] = None,
        allow_secret: AllowSecret = False,
    ) -> CallToolResult:
        """Change fields of an insight (one git commit; none if nothing changes). Sharpen
        its context or limitations when it misled you once; lower its confidence when
        it proved less sure."""
        changes = _given(locals(), INSIGHT_FIELDS)
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
        source: Annotated[str, _about("The insight to fold in (id or prefix); it is deleted.")],
        target: Annotated[str, _about("The insight that stays (id or prefix).")],
        claim: Annotated[str | None, _about("A new claim for the merged insight.")] = None,
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
        limit: Annotated[Count | None, _about("Only the newest N commits.")] = None,
    ) -> CallToolResult:
        """How an insight changed, oldest first, from git log (hand edits included)."""
        check_range("limit", limit, MAX_COUNT)

        def work(chitin: Chitin) -> dict[str, Any]:
            insight, entries = chitin.history(id, limit)
            return shapes.history(insight, entries)

        return await answer(worker, work)

    async def changelog(
        days: Annotated[Days | None, _about("Only the changes of the last N days.")] = None,
        limit: Annotated[Count, _about("At most N changes.")] = 20,
    ) -> CallToolResult:
        """The newest changes across the store, newest first, from git log."""
        check_range("days", days, MAX_DAYS)
        check_range("limit", limit, MAX_COUNT)
        return await answer(worker, lambda c: shapes.changelog(c.changelog(days, limit)))

    async def reflect(
        clear: Annotated[
            bool, _about("Empty the queue after listing it (when you are done).")
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
    from chitin.model.digest import DEFAULT_CHARACTERS
    from chitin.notices import notice
    from chitin.render import shapes
    from chitin.render.digest import digest_shape

    found = pending(chitin, clear)
    for path, problem in found.problems:
        notice(f"ignored {path}: {problem}")
    made = chitin.reflection_digests(found.markers, DEFAULT_CHARACTERS)
    digests = [digest_shape(d.marker, d.digest, d.warning) for d in made]
    cleared = found.cleared if clear else None
    return shapes.pending(found.markers, stats_shape(chitin), cleared, digests)


def pending(chitin: Chitin, clear: bool = False) -> Any:
    """The sessions waiting for reflection, as ``chitin reflect`` finds them."""
    from pathlib import Path

    from chitin.model.reflection import LEGACY_QUEUE

    return chitin.pending_reflections(Path.home() / LEGACY_QUEUE, clear)
