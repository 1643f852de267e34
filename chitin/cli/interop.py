"""Commands that move insights in and out: export, import (JSON, or a chitin 1.x database)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from chitin.cli.context import opened, prepare_vectors, vectors_line, write_output
from chitin.cli.options import GivenPath, format_option, output_option
from chitin.cli.output import emit_json, json_text, note, standard_input
from chitin.model.interchange import FROM_ITS_FILE, SQLITE_MAGIC
from chitin.render import shapes

if TYPE_CHECKING:
    from chitin.core.interop import Imported


@click.command(short_help="Print every insight as JSON (a lossless backup).")
@output_option("Write to this file (atomically) instead of stdout.")
@click.option(
    "--skip-unreadable",
    is_flag=True,
    help="Export the rest when an insight file cannot be read (each is named on stderr); "
    "without it, such a file stops the export before anything is written.",
)
@click.pass_context
def export(ctx: click.Context, output: Path | None, skip_unreadable: bool) -> None:
    """Print every insight as a JSON array, archived ones included.

    The shape is chitin 1.x's export (camelCase keys; lastRetrievedAt is the last
    retrieval) plus ours: lastReinforcedAt, archived, evidence (the reinforcement log),
    history (the insight's changes), and extraFrontmatter and extraBody (keys and text a
    person added to the file). `chitin import` reads it back with ids, provenance,
    conditions, counts, times and history intact, so export → import → export gives the
    same JSON. An insight file
    that cannot be read (`chitin check` says why) stops it, exit 1, unless
    --skip-unreadable exports the rest.
    """

    with opened(ctx, every_problem=skip_unreadable) as chitin:
        data = shapes.export(chitin.export(skip_unreadable))
        root = chitin.root
    if output is None:
        emit_json(data)
        return
    write_output(output, json_text(data) + "\n", root)
    click.echo(f"✓ Exported {len(data)} insight(s) to {output}")


@click.command("import", short_help="Import a JSON export or migrate a chitin 1.x database.")
# readable=False: whether it can be read is the import's to say, in its own words.
@click.argument("source", metavar="FILE", type=GivenPath(path_type=str, readable=False))
@click.option(
    "--merge",
    is_flag=True,
    help="Skip insights whose id the store already has, or that contribute would refuse "
    "as known (the same type and claim, and a trigger's condition and side, live in the "
    "store: an archived copy is none); of an "
    "insight repeated in FILE, only the strongest (a live one first) comes in. Without "
    "it, an id already in the store is an error.",
)
@click.option(
    "--allow-secret",
    is_flag=True,
    help="Import text that looks like a credential (a token, key or password) anyway; "
    "without it, such an item stops the import.",
)
@format_option
@click.pass_context
def import_insights(
    ctx: click.Context, source: str, merge: bool, allow_secret: bool, fmt: str
) -> None:
    """Import insights from FILE, in one commit; nothing is written if any item is bad.

    \b
    FILE may be:
      - a JSON export: ours, or chitin 1.x's (and its seed.json); an array or one object;
      - a chitin 1.x database (insights.db, any schema version), migrated with every
        field, its ids and its history (kept in the commit message, shown by history);
      - '-' for JSON on standard input.
    Embeddings are not copied; they are made again right after the import: now (with
    a progress bar on a terminal, or when they are few), else by a background
    `chitin embed`.
    """
    with opened(ctx, reading=False) as chitin:
        given = _json_input() if source == "-" else source
        result = chitin.import_insights(given, merge=merge, allow_secret=allow_secret)
        vectors = prepare_vectors(chitin) if result.insights else None
    if fmt == "json":
        emit_json(shapes.imported(result, vectors))
    else:
        said = vectors_line(vectors) if vectors else None
        click.echo("\n".join([*_summary(result), *([said] if said else [])]))
    if result.repeated:  # every item is restored (issue 25), but not without a word
        note(
            f"note: {result.repeated} imported item(s) repeat stored insights; "
            "`chitin dedupe` lists them"
        )


def _json_input() -> TextIO:
    """Standard input, refused at once if it holds a 1.x database: SQLite reads a file,
    not a stream, so such bytes could only be called "neither JSON nor a database"."""
    stream = standard_input()
    binary = getattr(stream, "buffer", None)
    if binary is None:  # a text stream only: JSON or nothing
        return stream
    data = binary.read()
    if data.startswith(SQLITE_MAGIC):
        raise click.BadParameter(
            f"standard input holds a chitin 1.x database, {FROM_ITS_FILE}: "
            "chitin import insights.db",
            param_hint="'FILE'",
        )
    return io.TextIOWrapper(io.BytesIO(data), encoding=stream.encoding, errors=stream.errors)


def _summary(result: Imported) -> list[str]:
    head = f"✓ Imported {len(result.insights)} insight(s)"
    unreadable = sum(1 for skipped in result.skipped if skipped.unreadable)
    why = [
        f"{count} {what}"
        for count, what in (
            (len(result.skipped) - unreadable, "duplicate(s)"),
            (unreadable, "item(s) whose id's file cannot be read"),
        )
        if count
    ]
    if why:
        head += f", skipped {' and '.join(why)}"
    lines = [head]
    if result.generation:
        lines.append(
            f"  from a chitin 1.x database (schema {result.generation}), "
            f"with {result.history_rows} history row(s) kept in the commit"
        )
    # every one, however many: an item skipped unnamed is an insight lost unnoticed
    for skipped in result.skipped:
        lines.append(f"  skipped items[{skipped.item}] ({skipped.id}): {skipped.reason}")
    if result.embeddings_left:
        lines.append(
            f"  {result.embeddings_left} 1.x embedding(s) were not copied "
            "(the local model makes them again)"
        )
    return lines
