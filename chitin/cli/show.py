"""What get, list and stats do once their flags are read: open the store, ask, print.

Without click, so that the session start's parser (cli/lean.py) runs the very code the
click commands in cli/read.py run. JSON shapes load with ``--format json`` only: the
text needs none (~1 ms of a get, docs/design.md §9f).
"""

from __future__ import annotations

from chitin.cli.context import Settings, opened_at
from chitin.cli.output import emit_json, say
from chitin.model import arguments
from chitin.render import text


def show_insight(settings: Settings, insight_id: str, fmt: str) -> None:
    with opened_at(settings) as chitin:
        insight = chitin.get(insight_id)
        path = chitin.path_of(insight.id)
        retrieved = chitin.last_retrieved([insight.id]) if fmt == "json" else {}
    if fmt == "json":
        from chitin.render import shapes

        emit_json(shapes.insight(insight, retrieved))
    else:
        say("\n".join(text.detail(insight, path)))


def show_list(
    settings: Settings,
    types: str | None,
    tags: str | None,
    provenance: str | None,
    min_confidence: str | None,
    archived: bool,
    fmt: str,
) -> None:
    floor = arguments.floor(min_confidence)
    with opened_at(settings) as chitin:
        found = chitin.list_insights(
            types=arguments.values(types),
            tags=arguments.tags(tags),
            provenance=provenance,
            min_confidence=floor,
            archived=archived,
            listed=fmt != "json",
        )
        retrieved = chitin.last_retrieved(i.id for i in found) if fmt == "json" else {}
    if fmt == "json":
        from chitin.render import shapes

        emit_json(shapes.insights(found, retrieved))
    else:
        say(text.insight_list(found, archived))


def show_stats(settings: Settings, fmt: str) -> None:
    with opened_at(settings) as chitin:
        result = chitin.stats()
    if fmt == "json":
        from chitin.render import shapes

        emit_json(
            shapes.stats(result.total, result.by_type, result.average_confidence, result.archived)
        )
    else:
        say(
            "\n".join(
                text.stats(result.total, result.average_confidence, result.by_type, result.archived)
            )
        )
