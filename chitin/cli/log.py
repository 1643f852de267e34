"""Commands that read history from git: history, changelog."""

from __future__ import annotations

import click

from chitin.cli import bounds
from chitin.cli.context import opened
from chitin.cli.options import format_option
from chitin.cli.output import emit_json
from chitin.render import shapes, text


@click.command(short_help="Show how an insight changed, from git log.")
@click.argument("insight_id", metavar="ID")
@click.option("--limit", type=bounds.COUNT, help="Only the newest N commits.")
@format_option
@click.pass_context
def history(ctx: click.Context, insight_id: str, limit: int | None, fmt: str) -> None:
    """Show how an insight changed, oldest first, from git log (hand edits included)."""
    with opened(ctx) as chitin:
        insight, entries = chitin.history(insight_id, limit)
        retrieved = chitin.last_retrieved([insight.id]) if fmt == "json" else {}
    if fmt == "json":
        emit_json(shapes.history(insight, entries, retrieved))
        return
    lines = [
        f'[{insight.type}] "{text.shortened(insight.claim, text.SHORT_CLAIM_LINE)}"',
        f"  Current: confidence {text.confidence(insight.confidence)} | "
        f"{insight.reinforcements}× reinforced",
        "",
    ]
    lines += [text.history_line(e) for e in entries] or ["  No history recorded."]
    lines += ["", f"  {len(entries)} event(s)"]
    click.echo("\n".join(lines))


@click.command(short_help="Show the newest changes across the store.")
@click.option("--days", type=bounds.DAYS, help="Only changes of the last N days.")
@click.option(
    "--limit", type=bounds.COUNT, default=20, show_default=True, help="At most N changes."
)
@format_option
@click.pass_context
def changelog(ctx: click.Context, days: int | None, limit: int, fmt: str) -> None:
    """Show the newest changes across the store, newest first, from git log."""
    with opened(ctx) as chitin:
        entries = chitin.changelog(days, limit)
    if fmt == "json":
        emit_json(shapes.changelog(entries))
    elif not entries:
        click.echo("No recent changes.")
    else:
        click.echo(
            "\n".join(
                [
                    f"Recent changes ({len(entries)}):",
                    "",
                    *(text.changelog_line(e) for e in entries),
                ]
            )
        )
