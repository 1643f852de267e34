"""Commands that score insight quality: quality, quality score (alias quality:score)."""

from __future__ import annotations

import click
from click.core import ParameterSource

from chitin.cli import bounds
from chitin.cli.context import opened
from chitin.cli.global_options import announce
from chitin.cli.options import format_option
from chitin.cli.output import emit_json
from chitin.render import quality as render
from chitin.render import shapes

# The original's `--json` flag, kept working for old scripts; `--format json` is ours.
_json_alias = click.option("--json", "as_json", is_flag=True, hidden=True)


@click.command("quality:score", short_help="Score one insight's quality.")
@click.argument("insight_id", metavar="ID")
@format_option
@_json_alias
@click.pass_context
def quality_score(ctx: click.Context, insight_id: str, fmt: str, as_json: bool) -> None:
    """Score one insight (ID or a unique prefix): its quality, the four components
    (engagement, freshness, maturity, confidence), its status and what to do about it."""

    with opened(ctx) as chitin:
        result = chitin.quality(insight_id)
    if as_json or fmt == "json":
        emit_json(shapes.quality_score(result))
    else:
        click.echo("\n".join(render.score_text(result)))


@click.group(
    invoke_without_command=True,
    short_help="Find thriving, fading, stale and dormant insights.",
)
@format_option
@_json_alias
@click.option("--stale-only", is_flag=True, help="List only the stale and dormant insights.")
@click.option(
    "--top",
    type=bounds.COUNT,
    default=10,
    show_default=True,
    help="How many of the best insights to list.",
)
@click.pass_context
def quality(ctx: click.Context, fmt: str, as_json: bool, stale_only: bool, top: int) -> None:
    """Score every live insight's quality and report the distribution, the best, the
    stale and dormant ones, and what to do about them.

    \b
    quality = 0.30 engagement (reinforcements) + 0.25 freshness (last retrieval)
            + 0.20 maturity (age × engagement) + 0.25 confidence
    Status: thriving ≥ 70%, healthy ≥ 50%; below that by days since last
    recalled (or created, if never): fading, stale after 30, dormant after 90;
    new instead of fading within 7 days of being created or reinforced.

    JSON always holds the whole report; --stale-only shapes the human output.
    """
    if ctx.invoked_subcommand is not None:
        _refuse_options_before(ctx)
        return
    announce(ctx)  # a group has no announcement of its own: its subcommands say it
    with opened(ctx) as chitin:
        result = chitin.quality(top=top)
    if as_json or fmt == "json":
        emit_json(shapes.quality_report(result))
    elif not result.total:
        click.echo(render.EMPTY_STORE)
    elif stale_only:
        click.echo("\n".join(render.stale_text(result)))
    else:
        click.echo("\n".join(render.report_text(result)))


def _refuse_options_before(ctx: click.Context) -> None:
    """`chitin quality --format json score X` would silently ignore the option."""
    given = [
        name
        for name in ("fmt", "as_json", "stale_only", "top")
        if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)
    ]
    if given:
        raise click.UsageError(
            f"options go after the subcommand: chitin quality {ctx.invoked_subcommand} ID …",
            ctx,
        )


quality.add_command(quality_score, "score")
