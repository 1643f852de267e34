"""Commands that choose insights for a situation: retrieve, render. What retrieve does
once its flags are read is in cli/recall.py, which the session start's parser
(cli/lean.py) runs without click."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from chitin.cli import bounds
from chitin.cli.options import GivenPath, Named, output_option
from chitin.cli.recall import FORMATS, recall, render_for
from chitin.model.bounds import MAX_FILTER_TAGS
from chitin.model.insight import TYPES


def _selection_options(function: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--budget",
                type=bounds.BUDGET,
                default=2000,
                show_default=True,
                help="Most tokens the insights may take (about 4 characters each).",
            ),
            click.option(
                "--max-results",
                type=bounds.COUNT,
                default=15,
                show_default=True,
                help="Most insights to consider.",
            ),
            click.option(
                "--type",
                "types",
                type=Named("types", TYPES),
                metavar="TYPES",
                help=f"Comma list of: {', '.join(TYPES)}.",
            ),
            click.option(
                "--tags",
                type=Named("a tag"),
                metavar="TEXT",
                help=(
                    f"Comma list; only insights with any of them (at most {MAX_FILTER_TAGS} tags)."
                ),
            ),
            click.option(
                "--min-confidence",
                type=bounds.FRACTION,
                metavar="0..1",
                help="Only insights this confident.",
            ),
        ]
    ):
        function = option(function)
    return function


@click.command(short_help="The insights that matter for what you are about to do.")
@click.option("--query", required=True, help="What you are about to do, in your own words.")
@_selection_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="compact",
    show_default=True,
    help="compact (markdown is the same), full, or json.",
)
@click.option("--explain", is_flag=True, help="Show every factor of every score.")
@click.pass_context
def retrieve(ctx: click.Context, /, **options: Any) -> None:
    """Print the insights that matter for QUERY, within a token budget.

    They come grouped by type, best first: the group holding the best insight leads,
    and each group lists its insights best first. When nothing matches the query, a
    first line says so and the strongest insights fill the result.

    \b
    chitin retrieve --query "fix the flaky login test"
    chitin retrieve --query "reply to Priya's review" --budget 500 --format json
    """
    recall(ctx.find_root().obj, **options)


@click.command(short_help="Write PERSONALITY.md from the insights for a query.")
@click.option("--query", default="", help="What the session is about (may be empty).")
@_selection_options
@click.option(
    "--template",
    type=GivenPath(exists=True, dir_okay=False, path_type=Path),
    help="A string.Template file (default: the store's templates/PERSONALITY.md, "
    "else chitin's own).",
)
@output_option("Write here (atomically) instead of to stdout.")
@click.option(
    "--session",
    metavar="ID",
    help="Note, for this session's reflection, which insights it was given "
    "(what the OpenClaw hook does).",
)
@click.pass_context
def render(ctx: click.Context, /, **options: Any) -> None:
    """Render PERSONALITY.md: the insights for QUERY in a Markdown template.

    The file is a function of the store's commit, the query and the budget: the same
    three always give the same bytes (time-dependent decay is measured at the commit's
    time), so it can be committed, diffed and cached.
    """
    render_for(ctx.find_root().obj, **options)
