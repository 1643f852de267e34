"""Commands for working with other machines: sync, and the git merge driver it relies on."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from chitin import Unmergeable, merge_file
from chitin.cli.context import opened
from chitin.cli.options import format_option
from chitin.cli.output import emit_json, note
from chitin.model import sync_choice
from chitin.render import shapes


@click.command(short_help="Fetch, merge and push the store through its git remote.")
@click.option(
    "--remote",
    "remote_name",
    metavar="NAME",
    help="The remote (default: the branch's upstream, else origin, else the only one).",
)
@click.option(
    "--continue",
    "resume",
    is_flag=True,
    help="Finish a sync a conflict stopped, with the files you edited in .chitin/conflicts/.",
)
@click.option(
    "--ours",
    multiple=True,
    metavar="ID",
    help="Settle this conflicted insight's conflicting text by this store's version; "
    "what merged cleanly (reinforcements, evidence, tags) stays merged (repeatable).",
)
@click.option(
    "--theirs",
    multiple=True,
    metavar="ID",
    help="Settle this conflicted insight's conflicting text by the remote's version; "
    "what merged cleanly (reinforcements, evidence, tags) stays merged (repeatable).",
)
@click.option("--abort", is_flag=True, help="Forget a sync a conflict stopped.")
@format_option
@click.pass_context
def sync(
    ctx: click.Context,
    remote_name: str | None,
    resume: bool,
    ours: tuple[str, ...],
    theirs: tuple[str, ...],
    abort: bool,
    fmt: str,
) -> None:
    """Share the store with other machines through a git remote: fetch, merge, push.

    Insight files are merged field by field by chitin's merge driver: reinforcements
    made on two machines add up, tags are united, the latest times win. A claim or
    text changed differently on both sides stops the sync: nothing is merged, the
    store keeps its last committed version, and each conflicted file waits, with
    conflict markers, in .chitin/conflicts/. Edit it and run `chitin sync --continue`,
    or keep one side of what is in conflict with `--ours ID` or `--theirs ID` (the
    rest stays merged). It never force-pushes and never rewrites commits.

    \b
    git -C ~/.local/share/chitin remote add origin git@github.com:me/personality.git
    chitin sync
    """
    if refused := sync_choice.refused(remote_name, resume, ours, theirs, abort, sync_choice.CLI):
        raise click.UsageError(refused[1])
    with opened(ctx, reading=False) as chitin:
        try:
            result = chitin.sync(remote_name, resume=resume, ours=ours, theirs=theirs, abort=abort)
        except sync_choice.BothSides as both:  # an id and a prefix of it: seen once resolved
            raise click.UsageError(sync_choice.both_sides(both.ids, sync_choice.CLI)) from None
        except sync_choice.NoId as empty:  # --ours "": a wrong use of the flag, exit 2
            words = sync_choice.CLI
            raise click.UsageError(sync_choice.no_id(empty.side, empty.conflicted, words)) from None
    for line in result.notes:
        note(f"chitin: {line}")
    if fmt == "json":
        emit_json(shapes.synced(result))
        return
    if abort:
        return  # its note said what it did
    where = f"{result.remote}/{result.branch}"
    if not result.received and not result.sent:
        click.echo(f"✓ Already in sync with {where}")
        return
    click.echo(
        f"✓ Synced with {where}: received {result.received} commit(s), "
        f"sent {result.sent} commit(s)" + (" (merged)" if result.merge_commit else "")
    )


@click.command("merge-driver", short_help="git's merge driver for insight files (run by git).")
@click.argument("base", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("path", required=False, default="")
def merge_driver(base: Path, ours: Path, theirs: Path, path: str) -> None:
    """Merge one insight file, field by field: git runs this during a merge, as
    `chitin merge-driver %O %A %B %P` (`chitin init` sets it up).

    Writes the result over OURS. Exits 0 when merged, 1 when both sides changed the
    same field or text differently; the file then holds conflict markers to resolve.
    A version larger than an insight file may be (1 MB) is not read: OURS is left as
    it is, for you to resolve.
    """

    try:
        conflicts = merge_file(base, ours, theirs, path or ours.name)
    except Unmergeable as error:
        # Not an insight file chitin can read: OURS stays as it is, and git reports the
        # file as conflicted for a person to resolve.
        click.echo(f"chitin: {path or ours}: {error}; resolve it by hand", err=True)
        sys.exit(1)
    if conflicts:
        what = ", ".join(conflicts).replace("lines", "the text")
        click.echo(f"chitin: {path or ours}: {what} changed on both sides", err=True)
        sys.exit(1)
