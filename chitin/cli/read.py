"""Commands that read insights: get, list, stats, similar. Their JSON shapes load with
``--format json`` only: the text needs none (~1 ms of a get, docs/design.md §9f)."""

from __future__ import annotations

import click

from chitin.cli.context import emit_json, format_option, opened
from chitin.model import arguments
from chitin.model.insight import PROVENANCES, TYPES
from chitin.render import text


@click.command()
@click.argument("insight_id", metavar="ID")
@format_option
@click.pass_context
def get(ctx: click.Context, insight_id: str, fmt: str) -> None:
    """Show one insight (live or archived)."""
    with opened(ctx) as chitin:
        insight = chitin.get(insight_id)
        path = chitin.path_of(insight.id)
    if fmt == "json":
        from chitin.render import shapes

        emit_json(shapes.insight(insight))
    else:
        click.echo("\n".join(text.detail(insight, path)))


@click.command("list")
@click.option("--type", "types", metavar="TYPES", help=f"Comma list of: {', '.join(TYPES)}.")
@click.option("--tags", help="Comma list; an insight with any of them matches.")
@click.option("--provenance", metavar="|".join(PROVENANCES), help="Only this provenance.")
@click.option("--min-confidence", metavar="0..1", help="Only insights at least this confident.")
@click.option("--archived", is_flag=True, help="List archived insights instead.")
@format_option
@click.pass_context
def list_insights(
    ctx: click.Context,
    types: str | None,
    tags: str | None,
    provenance: str | None,
    min_confidence: str | None,
    archived: bool,
    fmt: str,
) -> None:
    """List insights, newest first. Filters combine."""
    floor = arguments.floor(min_confidence)
    with opened(ctx) as chitin:
        found = chitin.list_insights(
            types=arguments.values(types),
            tags=arguments.tags(tags),
            provenance=provenance,
            min_confidence=floor,
            archived=archived,
            listed=fmt != "json",
        )
    if fmt == "json":
        from chitin.render import shapes

        emit_json(shapes.insights(found))
    else:
        click.echo(text.insight_list(found, archived))


@click.command(short_help="Count insights by type.")
@format_option
@click.pass_context
def stats(ctx: click.Context, fmt: str) -> None:
    """Count insights by type, with their average confidence."""
    with opened(ctx) as chitin:
        result = chitin.stats()
    if fmt == "json":
        from chitin.render import shapes

        emit_json(
            shapes.stats(result.total, result.by_type, result.average_confidence, result.archived)
        )
    else:
        click.echo(
            "\n".join(
                text.stats(result.total, result.average_confidence, result.by_type, result.archived)
            )
        )


@click.command(short_help="Find insights close to CLAIM, in words or in meaning.")
@click.argument("claim")
@click.option(
    "--threshold",
    metavar="0..1",
    help="Lowest similarity to show (default: 0.2 word overlap, 0.5 with --semantic).",
)
@click.option(
    "--semantic",
    "meaning",
    is_flag=True,
    help="Compare meaning (embeddings) instead of shared words.",
)
@format_option
@click.pass_context
def similar(ctx: click.Context, claim: str, threshold: str | None, meaning: bool, fmt: str) -> None:
    """Find stored insights whose claims share words with CLAIM (Jaccard), or, with
    --semantic, whose meaning is close to it (cosine similarity of embeddings)."""
    floor = arguments.threshold(threshold, meaning)
    with opened(ctx) as chitin:
        results = chitin.similar(claim, floor, semantic=meaning)
    if fmt == "json":
        from chitin.render import shapes

        emit_json(shapes.similar(results))
    else:
        click.echo("\n".join(text.similar(results)))
