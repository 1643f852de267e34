"""``chitin init``: create a store."""

from __future__ import annotations

import click

from chitin.cli.context import Settings, legacy_hint, opened, prepare_vectors, vectors_line
from chitin.cli.options import format_option
from chitin.cli.output import emit_json
from chitin.location import is_store
from chitin.render import shapes


@click.command(short_help="Create a store (idempotent).")
@click.option(
    "--seed",
    is_flag=True,
    help="Add the starter insights that ship with chitin (not those the store merged or deleted).",
)
@format_option
@click.pass_context
def init(ctx: click.Context, seed: bool, fmt: str) -> None:
    """Create a store: a git repository with insights/ and a git-ignored .chitin/.

    Running it again is safe: it only adds what is missing, and says so.
    """

    settings: Settings = ctx.find_root().obj
    existed = is_store(settings.store)
    # A git repository of something else (a project): the store joins its history.
    foreign = not existed and (settings.store / ".git").exists()
    with opened(ctx, reading=False) as chitin:
        legacy_hint(chitin)  # before the seeds: the store held nothing of the person's
        made = chitin.init(seed)
        commit, seeded, driver_set = made.commit, made.seeded, made.merge_driver_set
        vectors = prepare_vectors(chitin) if seeded else None
    if fmt == "json":
        path = str(settings.store)
        emit_json(shapes.initialised(path, commit is not None, seeded, vectors, driver_set))
        return
    click.echo(_done(str(settings.store), existed, commit, bool(seeded), driver_set))
    if foreign:
        click.echo(
            f"  note: {settings.store} was already a git repository; the store now shares "
            "its history (a store of its own needs a folder of its own)"
        )
    if seed:
        click.echo(
            f"✓ Seeded {len(seeded)} starter insight(s)"
            if seeded
            else "  Starter insights already present."
        )
        said = vectors_line(vectors) if vectors else None
        if said:
            click.echo(said)


def _done(
    path: str, existed: bool, commit: str | None, seeded: bool = False, driver_set: bool = False
) -> str:
    """What init did: made a store, completed one, or found one complete (``seeded``:
    and the seeds, said next, were added to it); ``driver_set``: it set git's merge
    driver in this clone's config (what `check` asks of a plain clone)."""
    if not existed:
        return f"✓ Store initialized at {path}"
    if commit is None and driver_set:
        return f"✓ {path} is already a store; set up this clone: git's merge driver for insights"
    if commit is None:
        return f"✓ {path} is already a store" + ("" if seeded else "; nothing to do")
    return f"✓ {path} was already a store; added what it lacked (commit {commit[:8]})"
