"""``chitin diff``: what changed in the personality between two revisions."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click
from click.core import ParameterSource

from chitin.cli import bounds
from chitin.cli.context import Settings, opened
from chitin.cli.options import format_option
from chitin.cli.output import emit_json, note
from chitin.core import Chitin, Query
from chitin.location import missing_note
from chitin.render import diff as text
from chitin.render import shapes


@contextmanager
def _files(ctx: click.Context) -> Iterator[Chitin]:
    """The store, for reading its files and git only: unlike ``opened``, this does not
    bring the cache up to date, which a diff never reads (a second at 10,000 edited
    files)."""

    settings: Settings = ctx.find_root().obj
    chitin = Chitin(settings.store, agent=settings.agent)
    if chitin.missing:
        note(missing_note(settings.store))
    try:
        yield chitin
    finally:
        chitin.close()


@click.command(short_help="What changed in the personality between two revisions.")
@click.argument("revisions", required=False, metavar="[REV[..REV]]")
@format_option
@click.option(
    "--render",
    "rendered",
    is_flag=True,
    help="Compare the rendered PERSONALITY.md of the two sides instead, as a unified diff.",
)
@click.option(
    "--query",
    default="",
    help="With --render: the query to render for. Default: empty, as `chitin render`.",
)
@click.option(
    "--budget",
    type=bounds.BUDGET,
    default=2000,
    show_default=True,
    help="With --render: the token budget, as `chitin render --budget`.",
)
@click.pass_context
def diff(
    ctx: click.Context, revisions: str | None, fmt: str, rendered: bool, query: str, budget: int
) -> None:
    """Show how the personality changed: insights added, removed, archived,
    unarchived, merged into another, and each changed field.

    \b
    chitin diff                  the working tree (hand edits too) against HEAD
    chitin diff HEAD~3           the working tree against HEAD~3
    chitin diff main..feature    commit main against commit feature
    chitin diff main...feature   feature against where it left main (a pull request)

    Insights are matched by id, so an archived, unarchived or retyped insight whose
    file moved is one insight. A merge's source shows as merged into its target when
    the merge commit lies between the two sides.

    --render compares PERSONALITY.md as `chitin render --query Q --budget N` makes it
    on each side (default: empty query, budget 2000, the store's own template on each
    side); a commit's side is rendered from that commit's files and time.
    """

    for name in ("query", "budget"):
        if not rendered and ctx.get_parameter_source(name) != ParameterSource.DEFAULT:
            raise click.UsageError(f"--{name} applies only with --render")
    if rendered:
        with opened(ctx) as chitin:
            made = chitin.diff(revisions, render=Query(query, budget=budget))
        patch = text.unified(made.old_text, made.new_text, made.ends)
        if fmt == "json":
            emit_json(shapes.rendered_diff(made.ends, query, budget, patch))
        else:
            click.echo(patch or text.NO_RENDER_CHANGES, nl=not patch)
        return
    with _files(ctx) as chitin:
        found = chitin.diff(revisions)
    for line in text.problem_lines(found.unreadable, found.ends):
        note(line)
    if fmt == "json":
        emit_json(shapes.diff(found.ends, found.deltas, found.unreadable))
    else:
        click.echo(text.human(found.ends, found.deltas))
