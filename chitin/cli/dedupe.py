"""``chitin dedupe``: the store's duplicate clusters, and merging them."""

from __future__ import annotations

import click

from chitin.cli.context import opened
from chitin.cli.options import format_option
from chitin.cli.output import emit_json
from chitin.render import shapes, text


@click.command(short_help="List duplicate clusters; --apply merges each into its strongest.")
@click.option(
    "--apply", "apply_", is_flag=True, help="Merge every cluster, one commit per cluster."
)
@click.option(
    "--allow-secret",
    is_flag=True,
    help="With --apply: merge a copy holding text that looks like a credential anyway.",
)
@format_option
@click.pass_context
def dedupe(ctx: click.Context, apply_: bool, allow_secret: bool, fmt: str) -> None:
    """List the store's clusters of duplicate insights, strongest first, each with the
    `chitin merge` that folds it into its strongest member (most reinforced, then most
    confident, then the oldest). With --apply, run those merges: one commit per
    cluster, keeping every reinforcement, tag and evidence line, as merge does.

    Duplicates are judged as contribute judges them: by meaning where the stored
    vectors are current (`chitin embed`), else by words; a pair whose verdict hangs
    on how the words of its own align gets the local model's token vectors, as at
    contribute (a bounded few a run: the output says how many pairs went without).
    check finds the same.
    """
    if allow_secret and not apply_:
        raise click.UsageError("--allow-secret applies only with --apply")
    with opened(ctx, reading=not apply_) as chitin:
        found = chitin.dedupe(apply=apply_, allow_secret=allow_secret)
    without = int(getattr(found, "without_alignment", 0))
    if fmt == "json":
        emit_json(shapes.dedupe(found, apply_, without))
        return
    click.echo("\n".join(text.dedupe_lines(found, apply_)))
    if without:
        click.echo(text.unaligned_line(without))
