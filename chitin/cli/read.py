"""Commands that read insights: get, list, stats, similar. The first three's work is in
cli/show.py, which the session start's parser (cli/lean.py) runs without click."""

from __future__ import annotations

from typing import Any

import click

from chitin.cli import bounds
from chitin.cli.context import opened
from chitin.cli.options import Named, format_option
from chitin.cli.output import emit_json
from chitin.cli.show import show_insight, show_list, show_stats
from chitin.model import arguments
from chitin.model.bounds import MAX_FILTER_TAGS
from chitin.model.insight import PROVENANCES, TYPES
from chitin.render import text


@click.command()
@click.argument("insight_id", metavar="ID")
@format_option
@click.pass_context
def get(ctx: click.Context, insight_id: str, fmt: str) -> None:
    """Show one insight (live or archived)."""
    show_insight(ctx.find_root().obj, insight_id, fmt)


@click.command("list")
@click.option(
    "--type",
    "types",
    type=Named("types", TYPES),
    metavar="TYPES",
    help=f"Comma list of: {', '.join(TYPES)}.",
)
@click.option(
    "--tags",
    type=Named("a tag"),
    help=f"Comma list; an insight with any of them matches (at most {MAX_FILTER_TAGS} tags).",
)
@click.option(
    "--provenance",
    type=Named("a provenance", PROVENANCES),
    metavar="|".join(PROVENANCES),
    help="Only this provenance.",
)
@click.option(
    "--min-confidence",
    type=bounds.FRACTION,
    metavar="0..1",
    help="Only insights at least this confident.",
)
@click.option("--archived", is_flag=True, help="List archived insights instead.")
@format_option
@click.pass_context
def list_insights(ctx: click.Context, /, **options: Any) -> None:
    """List insights, newest first. Filters combine."""
    show_list(ctx.find_root().obj, **options)


@click.command(short_help="Count insights by type.")
@format_option
@click.pass_context
def stats(ctx: click.Context, fmt: str) -> None:
    """Count insights by type, with their average confidence."""
    show_stats(ctx.find_root().obj, fmt)


@click.command(short_help="Find insights close to CLAIM, in words or in meaning.")
@click.argument("claim")
@click.option(
    "--threshold",
    type=bounds.FRACTION,
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
